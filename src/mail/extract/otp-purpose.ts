// What a one-time code is for, in many languages: signing in, verifying, confirming, approving, one-time use, a
// few minutes' validity, not sharing it. A message that says none of it is about something else — an invoice's
// bank code, a shipment's postcode, a release note's error code — whatever its code words say.
// biome-ignore-all format: the word lists read best packed by language, as written
import { moreWords } from './otp-languages.ts';
import { ACCESS, TYPING } from './otp-words.ts';
import { words } from './otp-wordset.ts';

// Minutes and seconds: how long a code lasts, and little else a mail asks to type in has.
const DURATION = [
  'minut', 'minuut', 'минут', 'хвилин', 'dakika', 'perc', 'phút', 'menit', 'minit', 'mínút', 'min[úu]t', 'minūt', 'minuč', 'minti', 'daqiiqo', 'мүнөт',
  'წუთ', 'λεπτ', 'דקות', 'دقيقة', 'دقائق', 'دقیقه', 'मिनट', 'মিনিট', 'นาที', '分', '분', 'second', 'sekund', 'секунд', 'saniye', 'segundo',
  'seconde', '秒', '초',
];
export const DURATION_WORDS = words(...DURATION);

export const PURPOSE_WORDS = words(
  ...ACCESS,
  ...TYPING,
  // the code words of the languages of otp-languages.ts: their lists hold no other words of purpose yet
  ...moreWords('code'),
  // kinds of one-time codes
  'one[- ]time', 'otp', '2fa', 'mfa', 'two[- ]factor', '2-step', 'verif', 'authent', 'tan\\b', 'passcode', 'einmal', 'weryfikac', 'jednorazow',
  'ověř', 'overen', 'overit', 'doğrula', 'engångs', 'engangs', 'проверочн', 'одноразов', 'підтвердж', 'xác minh', 'xác thực', '인증', '認証',
  '认证', '验证', '驗證', 'ワンタイム', 'パスコード', '確認', '确认', '확인', 'conferm', 'potwierdz', 'vahvist', 'tunnistau', 'megerősít',
  'ellenőrz', 'kertakäyt', 'egyszeri', 'jednokratn', 'التحقق', 'تأكيد', 'تایید', 'تأیید', 'אימות', 'सत्यापन', 'ओटीपी', 'ยืนยัน', 'যাচাই',
  'μίας χρήσης', 'επαλήθευσ', 'uthibitisho', 'thibitisha', 'pengesahan', 'autoriz', 'autoris', 'authoriz', 'authoris', 'approv', 'freigabe',
  'apstiprin', 'pieteik', 'patvirtin', 'kinnit', 'bekræft', 'bekreft', 'bekräft', 'belépés', 'tabbatar', 'shiga', 'potvrd', 'inlog',
  'ingelogd', 'prihlas', 'prihláš', 'podpis', 'ieej', 'onay', 'tek kullanım', 'token', 'liberar', 'activ', 'aktivier', 'acces\\b', 'pasiraš',
  'vienkart', 'ansixi', 'lokaci ɗaya', 'lambar sirri', 'சரிபார்ப்', 'உள்நுழை', 'உறுதிப்படுத்த', 'ერთჯერად', 'დადასტურ', 'შესვლ',
  'დაკავშირ', 'тастыкт',
  // how long it lasts
  'valid', 'gültig', 'geldig', 'giltig', 'gyldig', 'voimassa', 'érvényes', 'ważn', 'platn', 'platí', 'действ', 'дійсн', 'valable', 'válid',
  'valabil', 'expir', 'ablauf', 'läuft', 'verloopt', 'vervalt', 'caduc', 'scad', 'vence', 'istek', 'მოქმედებს', ...DURATION, 'derīg', 'galioja', 'vrijedi', 'važi', 'geçerli', 'wygas', 'good for', 'prove',
  // keeping it to oneself
  'share', 'communiqu', 'divulg', 'teilen', 'weiter', 'partag', 'compart', 'condivid', 'delen', 'dela', 'del den', 'udostępn', 'сообща', 'передава', 'paylaş',
);
