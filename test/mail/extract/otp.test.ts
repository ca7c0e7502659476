// Rules of the OTP detector that the corpora hold only once or not at all, each with the case that must not
// be confused with it.
import { describe, expect, it } from 'vitest';
import { detectOtp } from '../../../src/mail/extract/index.ts';

const text = (body: string, subject = 'Hello') => detectOtp({ subject, text: body, html: null });

describe('OTP detector rules', () => {
  it('a code the sentence says has expired is not returned; a condition about expiry says nothing', () => {
    expect(text('The verification code 274019 we sent you has expired and can no longer be used.')).toBeNull();
    expect(text('Dein Code 274019 ist abgelaufen.')).toBeNull();
    expect(text('Your verification code is 274019. If it has expired, ask for a new one.')).toBe('274019');
    expect(text('Your verification code is 274019. It expires in 10 minutes.')).toBe('274019');
  });

  it('a date written in groups is not a code in groups', () => {
    expect(text('Your code was requested on 2026-01-19 at 22:04.\nMagic codes work once.')).toBeNull();
    expect(text('Security code:\n19 01 2026')).toBeNull();
    expect(text('Security code:\n12 34 56')).toBe('123456');
  });

  it('a PIN under a card or voucher number belongs to the card; a sign-in PIN does not', () => {
    expect(text('Gift card number: 6034 9127 5582 1046\nPIN: 8821')).toBeNull();
    expect(text('Your PIN for this sign-in: 8821')).toBe('8821');
  });

  it('a prefixed code set apart under its label is taken, whatever the lines above mention', () => {
    expect(text('To pay invoice no. 7730412 use the one-time code below:\n\nBR-560418\n\nIt is valid for 5 minutes.')).toBe('560418');
  });

  it('reads code words of languages added in v3', () => {
    expect(text('Codul tău de autentificare este 852 014.')).toBe('852014');
    expect(text('Nambari yako ya uthibitisho ni 592604.')).toBe('592604');
    expect(text('קוד האימות שלך: 936105')).toBe('936105');
    expect(text('一次性密碼：470281（10 分鐘內有效）')).toBe('470281');
    expect(text('کد ورود شما: 714538')).toBe('714538');
  });
});
