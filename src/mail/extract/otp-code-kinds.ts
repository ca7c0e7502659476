// Which code the English word "code" names, by the word right before it: a whitelist of the words of signing in,
// where the qualifiers of otp-words.ts are a list of what a code is not.
// biome-ignore-all format: the word list reads best packed

// The words that may stand right before the word "code" when it names a code of signing in, verifying or
// approving: determiners and prepositions (the code stands alone), and the kinds of such codes. Any other word
// makes it another code — a branch code, a cost code, a course code — whatever the word: the qualifiers list what
// a code is not, and every new sender brings one they lack. English, and the determiners of the languages that
// write "code" the same way (French, Dutch, German).
const CODE_KINDS = new RegExp(
  `^(?:${[
    'the', 'this', 'that', 'these', 'those', 'your', 'yours', 'a', 'an', 'my', 'our', 'its', 'his', 'her', 'their', 'any', 'no',
    'following', 'below', 'above', 'same', 'new', 'fresh', 'latest', 'one', 'unique', 'temporary', 'temp', 'secret', 'personal', 'private',
    'single-use', 'one-time', 'onetime', 'time', '\\d+-digit', '\\d+', 'digits?', 'numeric', 'character', 'letter',
    'security', 'secure', 'verification', 'verify', 'verifying', 'confirmation', 'confirm', 'confirming', 'login', 'log-in', 'logon', 'sign-in',
    'signin', 'sign-on', 'signon', 'signing', 'sign-up', 'signup', 'in', 'on', 'up', 'access', 'auth', 'authentication', 'authenticator',
    'authorization', 'authorisation', '2fa', 'mfa', 'otp', 'totp', 'sms', 'text', 'email', 'e-mail', 'mail', 'pairing', 'pair', 'device',
    'approval', 'approve', 'reset', 'password', 'activation', 'magic', 'passcode', 'pin', 'challenge', 'validation', 'registration',
    'account', 'identity', 'check', 'session', 'transaction', 'payment', 'transfer', 'withdrawal', 'signature', 'deletion', 'step', 'factor',
    'and', 'or', 'enter', 'use', 'type', 'paste', 'input', 'send', 'resend', 'sent', 'request', 'requested', 'get', 'received', 'with', 'as',
    'is', 'was', 'of', 'to', 'for', 'at', 'by', 'from', 'here', 'le', 'la', 'les', 'du', 'un', 'une', 'votre', 'vos', 'ton', 'ta', 'ce',
    'cet', 'cette', 'de', 'des', 'mon', 'nouveau', 'uw', 'je', 'jouw', 'deze', 'die', 'dit', 'het', 'een', 'nieuwe', 'ihr', 'ihren',
    'ihrem', 'dein', 'deinen', 'deinem', 'den', 'der', 'dem', 'diesen', 'dieser', 'einen', 'neuen', 'neue', 'ein', 'folgenden',
  'onderstaande', 'volgende', 'bovenstaande', 'eenmalige', 'persoonlijke',
  ].join('|')})$`,
);
const WORD_BEFORE = /([\p{L}\p{N}][\p{L}\p{N}'’-]*)[ \t]+$/u;

/** The word "code" standing on its own is a code of signing in, unless the word before it names another kind. */
export function codeOfSigningIn(text: string, start: number, end: number): boolean {
  const word = text.slice(start, end).toLowerCase();
  if (!word.startsWith('code') || (start > 0 && /\p{L}/u.test(text[start - 1]!))) return true;
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const line = text.slice(from, start);
  const before = WORD_BEFORE.exec(line);
  const prev = before?.[1];
  // Only in English (other languages that borrow "code" have their own words before it: onderstaande code, यह code),
  // and not a word cut by the start of the text asked about (…tion code).
  if (!prev || (from === 0 && before.index === 0) || !/^[A-Za-z][A-Za-z0-9-]*$/.test(prev) || CODE_KINDS.test(prev.toLowerCase()))
    return true;
  const end_ = text.indexOf('\n', end);
  if (!ENGLISH.test(`${line} ${text.slice(end, end_ < 0 ? undefined : end_)}`)) return true;
  // A name, capitalised within its line: "your Plinth code", "the Quillo Rides code".
  return /^\p{Lu}\p{Ll}/u.test(prev) && line.trim() !== prev;
}
const ENGLISH = /(?<![\p{L}])(?:the|your|you|is|are|was|to|and|for|of|with|this|please|will|has|have|we|our|it)(?![\p{L}])/iu;
