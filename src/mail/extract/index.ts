// What a message says beyond its fields: its one-time code and its links, found at delivery.
import { extractLinks, type Link } from './links.ts';
import { detectOtp, OTP_DETECTOR_VERSION, type OtpInput } from './otp.ts';

export { detectOtp, extractLinks, OTP_DETECTOR_VERSION, type Link, type OtpInput };

export interface Extracted {
  otp: string | null;
  otpVersion: number;
  links: Link[];
}

export function extract(message: OtpInput): Extracted {
  return { otp: detectOtp(message), otpVersion: OTP_DETECTOR_VERSION, links: extractLinks(message.html, message.text) };
}
