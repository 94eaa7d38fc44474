// The state of one file in a change log: a content id, absent, or not kept. Its own module, so the checkpoint stores and the log share it without importing each other.
import * as z from '../../engine/zod.js';

/**
 * A content id, `null` for "the file did not exist", or `unavailable` when the content was not kept (too large, store
 * full). Ids are hex: a SHA-256 (64) or a git object id (40); the store decides which.
 */
export const StateSchema = z.union([z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)), z.null(), z.literal('unavailable')]);
export type FileState = z.infer<typeof StateSchema>;
