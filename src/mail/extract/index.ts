// What a message says beyond its fields: its one-time code and its links, found at delivery.
import { extractLinks, type Link } from './links.ts';
import { detectOtp, OTP_DETECTOR_VERSION, type OtpInput } from './otp.ts';

export { detectOtp, extractLinks, OTP_DETECTOR_VERSION, type Link };

interface Extracted {
  otp: string | null;
  otpVersion: number;
  links: Link[];
}

export function extract(message: OtpInput): Extracted {
  return { otp: detectOtp(message), otpVersion: OTP_DETECTOR_VERSION, links: extractLinks(message.html, message.text) };
}

/** A stored message: the parts extraction reads, and what it found then (links null: stored before links were kept). */
export interface StoredExtraction {
  subject: string;
  bodyText: string | null;
  bodyHtml: string | null;
  otp: string | null;
  otpVersion: number;
  links: Link[] | null;
}

/**
 * What the current detectors find in a stored message, or undefined when its stored finding stands. A message
 * an older detector found no code in is looked at again (one with a code keeps it), and one stored before
 * links were kept gets its links.
 */
export function reextract(message: StoredExtraction): Extracted | undefined {
  const stale = message.otp === null && message.otpVersion < OTP_DETECTOR_VERSION;
  if (!stale && message.links !== null) return undefined;
  const input = { subject: message.subject, text: message.bodyText, html: message.bodyHtml };
  return {
    otp: stale ? detectOtp(input) : message.otp,
    otpVersion: stale ? OTP_DETECTOR_VERSION : message.otpVersion,
    links: message.links ?? extractLinks(input.html, input.text),
  };
}
