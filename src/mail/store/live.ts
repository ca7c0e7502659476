// An inbox past its `expires_at` is gone for every read and write of the store, whether or not the sweeper has
// deleted it yet: every statement that reaches an inbox (as `i`) filters on this, by the database's clock.
export const LIVE = '(i.expires_at IS NULL OR i.expires_at > now())';
