// An inbox past its `expires_at` is gone for every read and write of the store, whether or not the sweeper has
// deleted it yet: every statement that reaches an inbox (as `i`) filters on this, by the database's clock.
export const LIVE = '(i.expires_at IS NULL OR i.expires_at > now())';

/**
 * A private inbox exists only for its owner: statements the API runs for a request filter on this too, with
 * `viewer` the SQL parameter (text) holding the account the request proved, or null for nobody (then only
 * inboxes that are not private pass). Who the viewer is decides api/access.ts.
 */
export const visibleTo = (viewer: string): string => `(NOT i.is_private OR i.account_id = ${viewer}::text)`;
