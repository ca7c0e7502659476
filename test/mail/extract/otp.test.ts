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

  it('a code only in the subject is taken when the body sends the reader there (v4)', () => {
    expect(text('Use the code in the subject of this email to sign in.', '[Qlix] 482 913 - your sign-in')).toBe('482913');
    expect(text('Gib den Code aus dem Betreff ein.', 'K7PQ2X - Qlix')).toBe('K7PQ2X');
    expect(text('Here is your weekly digest.', '[Qlix] 482 913 - weekly digest')).toBeNull();
    expect(text('See the subject.', 'K7PQ2X - Qlix')).toBeNull();
  });

  it('lower- and mixed-case letter-and-digit codes when a code word names them; words with numbers are not (v4)', () => {
    expect(text('Your login code:\n\nx7kq2m\n\nIt expires in 10 minutes.')).toBe('x7kq2m');
    expect(text('Your verification code is Tq8Zp3 and expires soon.')).toBe('Tq8Zp3');
    expect(text('Use code welcome10 at checkout for 10% off.')).toBeNull();
    expect(text('Your code now runs on win10 and covid19 dashboards.')).toBeNull();
    expect(text('Commit a3f9c21 fixes the verification code page.')).toBeNull();
    expect(text('Hi', 'x7kq2m is your login code')).toBe('x7kq2m');
  });

  it('one group of a dashed chain (gift-card claim code, licence key) is not a code (v4)', () => {
    expect(text('Claim code: ABCD-EF12-GH34\nRedeem it at checkout.')).toBeNull();
    expect(text('Your code:\nQ7RT-2MXP-9KLD-4411')).toBeNull();
    expect(text('Your code: X9F-2KD')).toBe('X9F-2KD');
  });

  it('a bank sort code is not a security code (v4)', () => {
    expect(text('Please pay to:\nSort code: 20-45-77\nAccount number: 83920174')).toBeNull();
    expect(text('Security code: 20-45-77')).toBe('204577');
  });

  it('meeting words of more languages (v4)', () => {
    expect(text('ID-ul ședinței: 845 293 177\nCod de acces: 482913')).toBeNull();
    expect(text('Kokouksen tunnus: 845 2931 7740\nVahvistuskoodi: 482913')).toBeNull();
    expect(text('Vahvistuskoodi: 482913')).toBe('482913');
  });

  it('a code word in a warning names no code (v4)', () => {
    expect(text('We will never ask you for a code.\nHarbour Ltd, 12 Quay Road, 400021 Port Town')).toBeNull();
    expect(text('Your code is 482913. We will never ask you for it.')).toBe('482913');
  });

  it('a label belongs to its own sentence, unless a verb of typing leads to it (v4)', () => {
    expect(text('Your one-time code is in the app. Member 40917733.')).toBeNull();
    expect(text('Type q7wd2x at the prompt. The code works once.')).toBe('q7wd2x');
    expect(text('Box code: 4829. The gate opens with code 1955#.')).toBeNull();
  });

  it('numbers that are something else beside a code word (v4)', () => {
    expect(text('Your parcel will be delivered to PIN 560034.\nYour OTP: 7152')).toBe('7152');
    expect(text('Your login code: 482913\nSupport: (305) 555-0128')).toBe('482913');
    expect(text('Code valid 25-27 Juni, one per customer: use it at checkout')).toBeNull();
    expect(text('Kod obiektu (NIS 20231047) wpisz w formularzu')).toBeNull();
    expect(text('Verification code:\nHarbour Ltd, Quay 12, LT-44255 Kaunas')).toBeNull();
  });

  it('gift-card PINs under the card number and codes made of a word are not one-time codes (v4)', () => {
    expect(text('Card number\nQ7RT-2MXP-9KLD-4411\nPIN\n6072')).toBeNull();
    expect(text('Share your personal code with friends:\n\nMARTA-4K7Q\n\nHi Marta, every friend gets a discount.')).toBeNull();
    expect(text('Your code:\n\nzima2026pl')).toBeNull();
    expect(text('Your sign-in code:\n\nqfyjy4')).toBe('qfyjy4');
    expect(text('Sign in with your code welcome10')).toBeNull();
  });

  it('a subject that is a code and words of signing in (v4)', () => {
    expect(text('Someone is signing in to your account.', '[Quayside] 381 264 - sign in')).toBe('381264');
    expect(text('Your weekly summary.', '[Quayside] 381 264 - weekly summary')).toBeNull();
  });

  it('references beside a code word: products, versions, user IDs, appointments, masked cards (v4)', () => {
    expect(text('Item 2 x kettle (product code 8850412) 39.90')).toBeNull();
    expect(text('Android version code 512004, build 5120418')).toBeNull();
    expect(text('Password reset requested for user ID 55102817. Choose a new password below.')).toBeNull();
    expect(text('Appointment tracking code: 7741203')).toBeNull();
    expect(text('Confirm your card payment. Security code follows.', 'Payment with card *4417')).toBeNull();
  });

  it('a line that asks for something to be typed labels what is set under it (v4)', () => {
    expect(
      text('Paste the following into the terminal prompt:\nXr4-9Lm\nCLI version 3.14.2\nTokens stored on this machine stay valid.'),
    ).toBe('Xr4-9Lm');
    expect(text('Enter the discount code at checkout:\nwelcome10\nOne code per order.')).toBeNull();
  });

  it('an abbreviation that is part of a name in capitals is not a code word (v4)', () => {
    expect(text('Dear TAN WEI MING (2301487J),\nYour one-time password is:\n8005 4113')).toBe('80054113');
  });

  it('a code word right before the number outweighs a booking further left (v4)', () => {
    expect(text('To change your reservation, your verification code is [4015].')).toBe('4015');
    expect(text('Booking reference (confirmation code)\nR4TQ8N')).toBeNull();
    expect(text('Reservation number: 58213047\nConfirmation code: 3MX9QP')).toBeNull();
  });

  it('asked to be typed to sign in or confirm, with no word for code (v4)', () => {
    expect(text('Type Wf8kP2d into the app to confirm this email address.')).toBe('Wf8kP2d');
    expect(text('Or enter 551902 in the box on the sign-up page.')).toBe('551902');
    expect(text('Type 2025 into the search box to see this year.')).toBeNull();
    expect(text('Enter 551902 in the box to track your order.')).toBeNull();
  });

  it('masked numbers, annotations in brackets and codes that start a name are not codes (v4)', () => {
    expect(text('Sign-in method: password + SMS code to (***) ***-0172')).toBeNull();
    expect(text('You asked to reset the password of your account (client no. 20931847).')).toBeNull();
    expect(text('Share your referral code, Valentina:\n\nVALEN7K2')).toBeNull();
  });

  it('code words of Georgian, Tamil, Urdu and Hausa (v4)', () => {
    expect(text('გადარიცხვის დასადასტურებლად გამოიყენეთ ერთჯერადი კოდი:\n815 302')).toBe('815302');
    expect(text('உங்கள் சரிபார்ப்புக் குறியீடு: 371846')).toBe('371846');
    expect(text('آپ کا تصدیقی کوڈ 450917 ہے')).toBe('450917');
    expect(text('Ga lambar sirri ta lokaci ɗaya:\n803514')).toBe('803514');
  });

  it('a full stop ends a sentence before a letter of a script without case (v5)', () => {
    expect(text('비밀번호가 변경되었습니다. 고객센터 1600 5550 으로 연락하세요. 이메일로 인증번호를 요구하지 않습니다.')).toBeNull();
    expect(text('로그인 인증번호는 483920 입니다. 10분 동안 유효합니다.')).toBe('483920');
  });

  it('a number in brackets right after a word annotates it (v5)', () => {
    expect(text('Ruf den Kundendienst(0800 5550) an, falls du keinen Bestätigungscode angefordert hast.')).toBeNull();
    expect(text('Your security code (483920) expires in 10 minutes.')).toBe('483920');
  });

  it('a number with a label of its own under a code word is named by that label (v5)', () => {
    expect(text('Para restablecer tu contraseña, sigue el enlace (válido una hora):\nNúmero de solicitud: 661902')).toBeNull();
    expect(text('To finish signing in, use this one-time code:\nCode: 661902')).toBe('661902');
  });

  it("a code word glued to its number is the number: a card PIN stays the card's (v5)", () => {
    expect(text('Gift card RX7M-2Q9K-PL4D PIN5093 valid until 31.12.2026')).toBeNull();
    expect(text('Your sign-in OTP482913 is valid for 5 minutes.')).toBe('482913');
  });

  it('a product code in an order is not a code (v5)', () => {
    expect(text('Comanda nr.: 402219837\n1 x Ghiveci ceramic (cod produs 118-2044) 79,00 lei')).toBeNull();
    expect(text('Codul tău de confirmare: 118 204')).toBe('118204');
  });
  it('code words of more languages, from a list of 69 (v5)', () => {
    expect(text('Kóòdù ìjẹ́rìísí rẹ ni:\n830 666')).toBe('830666');
    expect(text('សូមបញ្ចូលលេខកូដខាងក្រោម ដើម្បីផ្ទៀងផ្ទាត់គណនីរបស់អ្នក៖\n880453')).toBe('880453');
    expect(text('請輸入以下認證碼完成電子郵件認證：\n275640')).toBe('275640');
    expect(text('هغه کوډ چې تاسو ته لیږل شوی و (419230) اوس د اعتبار وړ نه دی')).toBeNull();
  });

  it('bank branch codes and Indian PIN codes are not one-time codes; six digits in groups count as six (v5)', () => {
    expect(text('Banking details\nAccount no.: 62841937715\nBranch code: 250655\nReference: INV-2025-0871')).toBeNull();
    expect(text('Rekeningnommer: 62004417792\nTakkode: 250655')).toBeNull();
    expect(text('Your one-time password (OTP) to sign in is 739 205.\nYour order ships today to pin code 560034.')).toBe('739205');
  });

  it('a code spelling a word of the subject, and a chain of dotted groups, are not one-time codes (v5)', () => {
    expect(text('Nhập mã bên dưới khi thanh toán:\nSALE1111', '11.11 siêu sale')).toBeNull();
    expect(text('Comprovante Pix\nAutenticação: 7F2A.91C0.55DE.30B8')).toBeNull();
    expect(text('That code, 905 650, was not used within 15 minutes and has now expired.')).toBeNull();
  });

  it('a reference of digits in two groups is not a card number that owns the PIN under it (v5)', () => {
    expect(text('You are paying S$ 58.40 (merchant ref 20250819-3317). Key in this one-time PIN on the payment page:\n7 2 9 0 5 3')).toBe(
      '729053',
    );
    expect(text('Gift card 6034 9127 5582 1046\nPIN:\n8 8 2 1 5 0')).toBeNull();
  });

  it('Chinese and Japanese qualifiers are read within a few characters; Korean verbs come after the code word (v5)', () => {
    expect(text('您正在绑定尾号8830的银行卡，验证码为：384721，5分钟内有效')).toBe('384721');
    expect(text('出装修理预约的优惠码：384721')).toBeNull();
    expect(text('아래 인증번호를 예약 변경 화면에 입력해 주세요.\n581-364')).toBe('581364');
    expect(text('예약 번호를 확인하세요.\n581-364')).toBeNull();
  });
  it('a word with a number is a promotion under words of a promotion, a code when typed right after its code word (v5)', () => {
    expect(text('Na sua primeira encomenda tem 10% de desconto. Basta usar o código\nwelcome10')).toBeNull();
    expect(text('Para confirmar que é mesmo a titular, introduza o\ncódigo bupd38 na app, em Conta > eSIM.')).toBe('bupd38');
  });

  it('numbers of flights, contracts, postcodes, appointments and phones beside code words (v5)', () => {
    expect(text('CP 3417 OTP → LIS 02.08.2025 06:15\nCP 3418 LIS → OTP 09.08.2025 09:40')).toBeNull();
    expect(text('YOUR VERIFICATION CODE 482913')).toBe('482913');
    expect(text('डिलीवरी पता: फ्लैट 304, बाणेर रोड, पुणे, PIN कोड 411045')).toBeNull();
    expect(text("07.06 Єдиний податок, код платежу 101 -4 237,00\n10.06 Оплата послуг зв'язку, договір 552017 -681,45")).toBeNull();
    expect(text('Codul tău de conectare este Vb3nQ7x.\nUrmătoarea programare: 24.06.2025 (cod programare P-118820).')).toBe('Vb3nQ7x');
    expect(text('إذا لم تكن أنت، اتصل بنا فوراً على 4455 5019 ولا تشارك أي رمز تحقق يصلك مع أي شخص.')).toBeNull();
  });

  it('a line above that ends its sentence does not lead into the next line (v5)', () => {
    expect(
      text('अगर यह आप नहीं थीं, तो तुरंत अपना पासवर्ड बदलें और सभी डिवाइस से लॉग आउट करें।\nChitraBox Media Pvt. Ltd., अंधेरी ईस्ट, मुंबई 400069'),
    ).toBeNull();
    expect(text('Confirm your sign-in with the code\n482913 within 10 minutes, Maria.')).toBe('482913');
  });
  it('forwarded, relayed and legacy mail: a sender before a code its sentence names, a long subject of the sentence (v5)', () => {
    expect(text("Quokka Pay: 861427 is your verification code. Don't share it with anyone.")).toBe('861427');
    expect(text('Dear Customer, your OTP for IBFT of PKR 25,000.00 to A/C ****7730 is 883 142. Do NOT share it.')).toBe('883142');
    expect(
      text('The One Time Password (OTP) for your transaction of INR 12,499.00 at CROMA ONLINE on your Credit Card ending 4821 is 604279.'),
    ).toBe('604279');
    expect(text('Batch no.: PB-2025041700193\nYour One-Time PIN (OTP) is 731506. It is valid for 5 minutes.')).toBe('731506');
  });

  it('numbers that are something else beside a code word, as set H showed (v5)', () => {
    expect(text('Si se pa t ou, chanje modpas ou touswit epi rele nou nan 555-0109.')).toBeNull();
    expect(text("* 'plinth token create --ttl 86400' is deprecated")).toBeNull();
    expect(text('The verification code never reached you: the mobile number on file ended in 0162 instead of 0126.')).toBeNull();
    expect(text('Zboží: Pračka Vira 7 kg (kód zboží 3321-0098)')).toBeNull();
    expect(text('상품권 핀번호 3318-7720-4105-9963\n교환코드 DB7Q2X9K')).toBeNull();
    expect(text('Can you raise a PO against it? Cost code is 4410.')).toBeNull();
    expect(text('শাখা ধানমন্ডি শাখা (কোড 0261)')).toBeNull();
    expect(text('รหัสยืนยันการลงนามเอกสาร DOC-2568-0419')).toBeNull();
  });

  it('a verb of typing three words before its code word still asks for it (v5)', () => {
    expect(text('Zadejte prosím tento kód na stránce objednávky:\n90 41 76')).toBe('904176');
  });
  it('amounts, card slips, fields of a dump, gift-card PINs in Japanese and referral codes in Hindi (v5)', () => {
    expect(text('Подтверждение перевода 15 000 руб.', 'Подтверждение перевода 15 000 руб.')).toBeNull();
    expect(text('APPR CODE: 553091 TRACE NO: 004411')).toBeNull();
    expect(text('AUTH CODE: 6618 OTP: 294857')).toBe('294857');
    expect(text('■ギフト券番号 ：4129-8830-5512-0047\n■PIN番号 ：7730')).toBeNull();
    expect(text('आपका रेफ़रल कोड\nrohit250')).toBeNull();
    expect(text('Kode penukaran:\nR8MK2VQ7TZ')).toBeNull();
    expect(text('Parcelbox EU S.a r.l., UK Branch, 1 Principal Place, London EC2A 2FA')).toBeNull();
  });

  it('asked without a code word: "key in", a subject that names the code, Persian in an Arabic charset (v5)', () => {
    expect(text('To confirm this change, key in q9Xb4T on the app before 6.30pm today.')).toBe('q9Xb4T');
    expect(text('Idan kai ne, yi amfani da wannan lambar:\n715064', 'Lambar shiga Kasuwar Dandali')).toBe('715064');
    expect(text('براي تأييد ايميل، كد زير را وارد كنيد:\n752940')).toBe('752940');
    expect(text('Код для входа - в теме этого письма. Он действует 15 минут.', '3jhkcr - код для входа в Почтарь')).toBe('3jhkcr');
  });

  it("the sender's name is no word of the message (v5)", () => {
    const mail = {
      subject: 'aB7kP2 - Kargoist giriş kodunuz',
      text: 'Girişi tamamlamak için bu e-postanın konu satırındaki kodu kullanabilirsiniz.',
      html: null,
    };
    expect(detectOtp({ ...mail, sender: 'no-reply@kargoist.example' })).toBe('aB7kP2');
    expect(detectOtp(mail)).toBeNull();
  });
});
