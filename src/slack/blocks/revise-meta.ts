/**
 * What the Revise and Edit modals carry in their `private_metadata`, from the click that opened
 * them to the form's submission: the review the button named, where the card is, and the click's
 * response URL. Slack sends a view_submission with no response URL and no channel, so without these
 * a person whom Slack shows no ephemeral in that channel (not a member of it, or a channel the bot
 * was removed from) would hear nothing at all about what became of their form. Slack keeps at most
 * 3,000 characters of `private_metadata`; this stays well within that (an over-long URL is left out).
 */
import { z } from 'zod';

/** Slack's limit on a view's private_metadata. */
export const PRIVATE_METADATA_MAX = 3000;

/** A response URL longer than this is not Slack's (theirs are about 100 characters): left out. */
const RESPONSE_URL_MAX = 1000;

export const reviseMetaSchema = z.object({
  /** The button's value (checked again when the form comes back: it is the clicker's to forge). */
  value: z.unknown(),
  /** Absent on modals opened before Edit had its own button: those were Revise. */
  action: z.enum(['revise', 'edit', 'always']).default('revise'),
  channel: z.string().max(40).optional(),
  messageTs: z.string().max(40).optional(),
  threadTs: z.string().max(40).optional(),
  /** The click's response URL (absent on modals opened before it was carried). */
  responseUrl: z.string().url().max(RESPONSE_URL_MAX).optional(),
});
export type ReviseMeta = z.input<typeof reviseMetaSchema>;

/** The metadata as the modal carries it: JSON within Slack's limit (the URL dropped if need be). */
export function reviseMetadata(meta: ReviseMeta): string {
  const url = meta.responseUrl && meta.responseUrl.length <= RESPONSE_URL_MAX ? meta.responseUrl : undefined;
  const text = JSON.stringify({ ...meta, responseUrl: url });
  if (text.length <= PRIVATE_METADATA_MAX) return text;
  return JSON.stringify({ ...meta, responseUrl: undefined });
}

/** The metadata a submission came back with, or undefined when it is not this shape. */
export function readReviseMeta(text: string): z.infer<typeof reviseMetaSchema> | undefined {
  try {
    const parsed = reviseMetaSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Where the click that opened a modal was, from the metadata it came back with, and who sent it. */
export const placeOfMeta = (meta: z.infer<typeof reviseMetaSchema> | undefined, user: string) => ({
  channel: meta?.channel,
  messageTs: meta?.messageTs,
  threadTs: meta?.threadTs,
  user,
  responseUrl: meta?.responseUrl,
});

/** A card click's place, as a modal it opens carries it (Slack sends a submission none of it). */
export function clickedAt(body: {
  channel?: { id: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string; thread_ts?: string };
  response_url?: string;
}): Pick<ReviseMeta, 'channel' | 'messageTs' | 'threadTs' | 'responseUrl'> {
  return {
    channel: body.channel?.id ?? body.container?.channel_id,
    messageTs: body.message?.ts ?? body.container?.message_ts,
    threadTs: body.message?.thread_ts,
    responseUrl: body.response_url,
  };
}
