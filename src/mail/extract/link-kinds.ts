// What a link is for, read as a person would: first what it says (its anchor text), then where it leads (the
// words of its path and query), and, when it says nothing of itself ("click here", a bare URL in the text), the
// sentence around it. The kinds a test waits for are the links that act on an account: confirm an address
// (verify), sign in (magic_link), set a password anew (reset), leave a list (unsubscribe), join someone
// (invite); every other link is `other`.
import {
  ADDRESS,
  CHECK,
  CONFIRM,
  fold,
  GENERIC,
  INVITE,
  MAGIC,
  NOT_ADDRESS,
  PASSWORD,
  RESET,
  SIGN_IN,
  UNSUBSCRIBE,
  VERIFY,
} from './link-words.ts';

export const LINK_KINDS = ['verify', 'magic_link', 'reset', 'unsubscribe', 'invite', 'other'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface LinkSignals {
  url: string;
  /** Its anchor text (or image alt); null for a URL written in the text. */
  text: string | null;
  /** The sentence before it and the one after (see contextAround); asked only when the link says nothing. */
  context: () => string;
}

export function classifyLink({ url, text, context }: LinkSignals): LinkKind {
  let tokenFound: boolean | undefined;
  const token = () => (tokenFound ??= hasToken(url));
  const said = text === null ? undefined : kindOfWords(fold(text), token);
  if (said) return said;
  const path = kindOfPath(url, token);
  if (path) return path;
  if (text === null || isGeneric(text)) return kindOfWords(fold(context()), token) ?? 'other';
  return 'other';
}

function kindOfWords(t: string, token: () => boolean): LinkKind | undefined {
  if (UNSUBSCRIBE.test(t)) return 'unsubscribe';
  const signIn = SIGN_IN.test(t);
  const password = PASSWORD.test(t);
  // "Sign in with your password" is no reset (nor a magic link); "reset your password and sign in" is one.
  if (RESET.test(t) || (password && !signIn)) return 'reset';
  if (INVITE.test(t)) return 'invite';
  const address = ADDRESS.test(t);
  const verify = (VERIFY.test(t) || CONFIRM.test(t) || (address && CHECK.test(t))) && (address || !NOT_ADDRESS.test(t));
  if (MAGIC.test(t)) return 'magic_link';
  // A sign-in link that signs in by itself carries a token; one to the sign-in page does not.
  if (signIn && !password && !(verify && address) && token()) return 'magic_link';
  return verify ? 'verify' : undefined;
}

const PATH_KINDS: [RegExp, LinkKind][] = [
  [
    /unsub|opt-?out|abmeld|abbestell|d[eé]sinscri|d[eé]sabon|desuscri|darse-de-baja|afmeld|uitschrijv|disiscri|wypisz|otpis|preferen|(?:e?mail|notification|subscription)-?(?:settings|center|centre)|manage-?subscri/,
    'unsubscribe',
  ],
  [/passw|pwd|(?<![a-z])reset|forgot|recover|kennwort|wachtwoord|contrase|senha/, 'reset'],
  [/invit|einladung|convite|uitnodig|zaprosz|(?<![a-z])join(?![a-z])/, 'invite'],
  [/magic|passwordless/, 'magic_link'],
  [/verif|confirm|activat|validat|opt-?in|doubleopt/, 'verify'],
];
const SIGN_IN_PATH = /(?<![a-z])(?:log-?in|sign-?in|signon|auth|sso|session)(?![a-z])/;

/** The kind the link's path and query name (a tracking wrapper's target included, once decoded). */
function kindOfPath(url: string, token: () => boolean): LinkKind | undefined {
  const words = decode(decode(pathOf(url))).toLowerCase();
  for (const [pattern, kind] of PATH_KINDS) if (pattern.test(words)) return kind;
  return SIGN_IN_PATH.test(words) && token() ? 'magic_link' : undefined;
}

/** A URL in WHATWG form without its scheme and host, which name no kind (a single-page app's route in the
 * fragment does). */
function pathOf(url: string): string {
  return url.replace(/^https?:\/\/[^/?#]*/i, '');
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A run of 16 or more URL-safe characters mixing letters and digits in the path or query: a one-time token. */
function hasToken(url: string): boolean {
  for (const [run] of pathOf(url).matchAll(/[A-Za-z0-9_-]{16,}/g)) if (/\d/.test(run) && /[A-Za-z]/.test(run)) return true;
  return false;
}

/** Says nothing of where it leads: "Click here", "this link", a URL written out as its own text. */
function isGeneric(text: string): boolean {
  const t = fold(text);
  if (/^(?:https?:\/\/|www\.)/.test(t)) return true;
  return !/\p{L}/u.test(GENERIC.remove(t));
}

const SENTENCE_END = /(?<=[.!?])\s+|(?<=[。！？])/u;
const LETTER = /\p{L}/u;

/**
 * The words that tell what a link is for when it does not say: the sentence before it on its own line (or,
 * when it starts its line, the whole line before) and the sentence after it on its line. `before` and `after`
 * are the text between it and its neighbouring links, one line per line of the page.
 */
export function contextAround(before: string, after: string): string {
  const lines = before.slice(-600).split('\n');
  const own = lines.at(-1)!;
  let lead = '';
  if (LETTER.test(own)) lead = own.split(SENTENCE_END).findLast((s) => LETTER.test(s)) ?? '';
  else lead = lines.slice(0, -1).findLast((l) => LETTER.test(l)) ?? '';
  const trail = after.slice(0, 300).split('\n')[0]!.split(SENTENCE_END)[0]!;
  return `${lead.trim().slice(-200)} ${trail.trim().slice(0, 150)}`.trim();
}
