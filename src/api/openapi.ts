/**
 * The OpenAPI 3.1 document of the HTTP API, at /api/v1/openapi.json: made from the same zod
 * schemas the server checks and answers with (ask-shapes.ts), so it says what the server does.
 */
import { z } from 'zod';
import { apiErrorSchema, askViewSchema, createAskSchema } from './ask-shapes.js';

const json = (schema: z.ZodType, io: 'input' | 'output' = 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;

const ERRORS = {
  400: 'The request is not valid: `error.fields` says what to fix.',
  401: 'No valid token.',
  403: 'The client may not ask in this channel, or the workflow is off there, or the rules asked are looser than the channel allows.',
  404: 'No such review of this client.',
  409: 'The idempotency key was used for a different review, or the review is still being posted (cancel again).',
  413: 'The body is too large.',
  422: 'The engine refused the request (its sentence says why).',
  429: 'Too many calls for this client (see Retry-After), or too many reviews waiting in the channel.',
  503: 'signoff could not do it just now; try again.',
} as const;

function responses(ok: Record<string, string>, errors: (keyof typeof ERRORS)[]) {
  const out: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ok)) {
    out[status] = {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Review' } } },
    };
  }
  for (const status of errors) {
    out[status] = {
      description: ERRORS[status],
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'signoff',
      version: '1',
      description:
        'Ask a Slack team to sign off on what an agent wants to do: the review is posted as a card in the channel, and its decision (approved, revised, rejected) comes back by polling, a long-poll, or a signed callback.',
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/reviews': {
        post: {
          operationId: 'createReview',
          summary: 'Ask for a review (idempotent with Idempotency-Key)',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 200 },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateReview' } } },
          },
          responses: responses(
            {
              201: 'Asked: the card is being posted',
              200: 'Asked before with this Idempotency-Key: that review',
            },
            [400, 401, 403, 409, 413, 422, 429, 503],
          ),
        },
      },
      '/api/v1/reviews/{id}': {
        get: {
          operationId: 'getReview',
          summary: 'Read a review, or wait (up to `wait` seconds) until it is decided',
          parameters: [
            idParam,
            {
              name: 'wait',
              in: 'query',
              required: false,
              schema: { type: 'number', minimum: 0, maximum: 30 },
            },
          ],
          responses: responses({ 200: 'The review as it is now' }, [400, 401, 404, 429, 503]),
        },
      },
      '/api/v1/reviews/{id}/cancel': {
        post: {
          operationId: 'cancelReview',
          summary: 'Cancel a review: its card says so and nobody can decide it any more',
          parameters: [idParam],
          responses: responses(
            { 200: 'The review, cancelled (or as it ended before)' },
            [401, 403, 404, 409, 422, 429, 503],
          ),
        },
      },
      '/api/v1/callback-key': {
        get: {
          operationId: 'getCallbackKey',
          summary: 'The public key callbacks are signed with (Ed25519, PEM)',
          security: [],
          responses: {
            200: {
              description: 'The key',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CallbackKey' } } },
            },
            503: {
              description: ERRORS[503],
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          },
        },
      },
    },
    webhooks: {
      reviewAnswered: {
        post: {
          summary:
            'Sent to the callbackUrl once the review is decided, cancelled or refused; again with backoff until it answers 2xx (at least once: the signoff-review header tells a repeat)',
          parameters: [
            {
              name: 'signoff-signature',
              in: 'header',
              required: true,
              description:
                't=<unix seconds>,ed25519=<base64 signature of "<t>.<body>"> (check it with /api/v1/callback-key, and that t is recent)',
              schema: { type: 'string' },
            },
            {
              name: 'signoff-review',
              in: 'header',
              required: true,
              schema: { type: 'string', format: 'uuid' },
            },
          ],
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Review' } } },
          },
          responses: { 200: { description: 'Taken (any 2xx)' } },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        CreateReview: {
          ...json(createAskSchema, 'input'),
          // The refinement zod cannot write as JSON Schema (oneOfContentOrCall): exactly one of them.
          oneOf: [{ required: ['content'] }, { required: ['toolCall'] }],
        },
        Review: json(askViewSchema),
        Error: json(apiErrorSchema),
        CallbackKey: {
          type: 'object',
          properties: { algorithm: { const: 'ed25519' }, publicKey: { type: 'string' } },
          required: ['algorithm', 'publicKey'],
        },
      },
    },
  };
}
