// Labels are free text stored in PostgreSQL, whose text type cannot hold NUL: such a label is a 400 naming
// /label, not a failed insert.
import type { ValidationIssue } from '../../platform/http/index.ts';

export function labelIssue(label: string | null | undefined): ValidationIssue | undefined {
  return label?.includes('\u0000') ? { path: '/label', location: 'body', message: 'must not contain NUL characters' } : undefined;
}
