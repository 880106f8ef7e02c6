-- A proposal's insight review waiting since before review requests said what their Reject does
-- (`rejectGoesOn`): its Search more goes on to another search. Without it, a list would offer
-- its box ("Reject selected" records a Search more) and its confirmation would say the task ends.
-- The content hash covers neither, so its card's buttons stay good.
UPDATE signoff.reviews
   SET request = request || jsonb_build_object(
         'rejectGoesOn', 'The agents search again (for what you write, if anything); the task goes on.')
 WHERE status = 'pending'
   AND request->>'kind' = 'insight_review'
   AND request->'labels'->>'reject' = 'Search more'
   AND NOT request ? 'rejectGoesOn';
