// What a message says beyond its fields: its one-time code and its links, found at delivery, and when a stored
// finding is out of date.
import { LINK_KINDS, type LinkKind } from './link-kinds.ts';
import { extractLinks, LINKS_VERSION, type Link, type LinksInput } from './links.ts';
import { detectOtp, OTP_DETECTOR_VERSION, type OtpInput } from './otp.ts';

export { detectOtp, extractLinks, LINK_KINDS, LINKS_VERSION, OTP_DETECTOR_VERSION, type Link, type LinkKind, type LinksInput };

/** A message as extraction reads it: the stored text (for the code) and, for links, the text the sender wrote. */
export type ExtractInput = OtpInput & LinksInput;

export interface Extracted {
  otp: string | null;
  otpVersion: number;
  links: Link[];
  linksVersion: number;
}

export function extract(message: ExtractInput): Extracted {
  return { otp: detectOtp(message), otpVersion: OTP_DETECTOR_VERSION, links: extractLinks(message), linksVersion: LINKS_VERSION };
}

/** What a stored message's findings were made by (links null: stored before links were kept). */
export interface StoredFindings {
  otp: string | null;
  otpVersion: number;
  links: unknown[] | null;
  linksVersion: number;
}

/** An older detector found no code in it (a code found stays found). */
export function otpStale(m: StoredFindings): boolean {
  return m.otp === null && m.otpVersion < OTP_DETECTOR_VERSION;
}

/** Its links were found by an older extractor, or not kept at all. */
export function linksStale(m: StoredFindings): boolean {
  return m.links === null || m.linksVersion < LINKS_VERSION;
}

/** Whether reading the message should look at it again. */
export function isStale(m: StoredFindings): boolean {
  return otpStale(m) || linksStale(m);
}

/** A stored message: the parts extraction reads, and what it found then. */
export interface StoredExtraction extends StoredFindings {
  fromAddress: string;
  subject: string;
  bodyText: string | null;
  bodyHtml: string | null;
  links: Link[] | null;
}
