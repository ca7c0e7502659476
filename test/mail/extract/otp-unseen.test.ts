// Rules of the OTP detector from v6 on, each written when a set of unseen mail (test/fixtures/otp-set-j/ to
// otp-set-p/) showed it missing, each with the case that must not be confused with it. Each rule's own cases
// failed on the version before it (named in each title); the cases it must not confuse already passed.
import { describe, expect, it } from 'vitest';
import { detectOtp } from '../../../src/mail/extract/index.ts';

const text = (body: string, subject = 'Hello') => detectOtp({ subject, text: body, html: null });

describe('OTP detector rules from unseen sets', () => {
  it('student numbers, referral codes made of a name, ZIP codes wrapped under a warning, POS batches (v6)', () => {
    expect(text('Phụ huynh em Lan (lớp 2B, mã học sinh HS-20240517). Mã xác thực của bạn:\n4\n8\n2\n1\n9\n3')).toBe('482193');
    expect(text('Cara Giulia, grazie!\nPorta un amico: gli regali 10 € con il tuo codice personale giuliar-3m8.')).toBeNull();
    expect(text('We will never\nsend codes by text. Acme Inc., 1 Main St, Trenton, NJ\n08608')).toBeNull();
    expect(text('CARD : MASTERCARD ****1234 (CHIP/PIN)\nTXN TYPE : SALE BATCH : 000417')).toBeNull();
  });

  it("a booking's confirmation number, a gift card's password, a condition after expiry, IBANs (v6)", () => {
    expect(text('■予約番号：KT55012\n■確認番号：4821')).toBeNull();
    expect(text('■予約番号：KT55012\n■認証コード：482193')).toBe('482193');
    expect(text('Kart numarası: 6011 2233 4455 6677\nŞifre: 3318')).toBeNull();
    expect(text('El código 482913 ha caducado y ya no se puede usar.')).toBeNull();
    expect(text('Transfer to GB33 BUKB 2020 1555 5555 55.\nYour PIN for this transfer: 582014')).toBe('582014');
  });

  it('code words inside compounds, a sentence that opens with its label, a code word after a lower-case code (v6)', () => {
    expect(text('Hann gildir í 10 mínútur.', 'Staðfestingarkóði: 5521')).toBe('5521');
    expect(text('Gentile utente,\nil codice di verifica per completare la registrazione del conto è: K7QM2P')).toBe('K7QM2P');
    expect(text('लगइन गर्न app मा x4mz9q code टाइप गर्नुहोस्।')).toBe('x4mz9q');
    expect(text('Release notes: commit a3f9c21 fixes the login code page.')).toBeNull();
  });

  it('the word "code" in English names a code of signing in only after words that say so, or a name (v6)', () => {
    expect(text('Your class code is 482913. Share it with your students so they can join.')).toBeNull();
    expect(text('Your Quillo code is 482913.')).toBe('482913');
    expect(text('Your sign-in code is 482913.')).toBe('482913');
    expect(text('Voer de volgende code in:\n482913')).toBe('482913');
  });

  it('postcodes, bank and article codes, referral and error codes, a booking in more languages (v7)', () => {
    expect(text('Livrare la Str. Horea 5, cod poştal 400217, Cluj.')).toBeNull();
    expect(text('العنوان: شارع الملك فهد، الرمز البريدي 12271، الرياض')).toBeNull();
    expect(text('Kód banky: 0300')).toBeNull();
    expect(text('Code banque : 30002 Code guichet : 00550')).toBeNull();
    expect(text('Код банку (МФО) 351005')).toBeNull();
    expect(text('Silla Nórdica (código de artículo 552014) 49,90 €')).toBeNull();
    expect(text('Gửi mã giới thiệu của bạn cho bạn bè:\nMAI5520')).toBeNull();
    expect(text('오류 코드 E-5531이 표시되던 문제 수정')).toBeNull();
    expect(text('Namba ya uhifadhi KX7M2Q', 'Uthibitisho wa uhifadhi KX7M2Q')).toBeNull();
  });

  it('dot leaders, pairing a device, an HTML body read for the code its subject names (v7)', () => {
    expect(text('ONE-TIME PASSCODE ..... 52830174')).toBe('52830174');
    expect(text('КОД ПОДРАЗДЕЛЕНИЯ ...... 0517')).toBeNull();
    expect(text('To pair the speaker with your account, enter:\nqk7-2wd')).toBe('qk7-2wd');
    const html = '<p>Ili kuendelea, weka nambari ifuatayo kwenye mfumo:</p><p>61842</p>';
    expect(detectOtp({ subject: 'Thibitisha barua pepe yako', text: null, html })).toBe('61842');
  });

  it('a mail of other numbers that says nothing of what a code is for holds none, unless beyond doubt (v7)', () => {
    expect(text('Ihr Code: 4829\nBestellnummer 77120, Summe 24,90 EUR')).toBeNull();
    expect(text('Ihr Code: 482913. Er ist 10 Minuten gültig.\nBestellnummer 77120, Summe 24,90 EUR')).toBe('482913');
    expect(text('Your code is 482913.')).toBe('482913');
  });

  it('postcodes, referral, product, store, branch, offer and supply-point codes in more languages (v8)', () => {
    expect(text('Penghantaran percuma ke poskod 40000 hingga 48300 sahaja.')).toBeNull();
    expect(text('추천 코드: mintl4k9q2')).toBeNull();
    expect(text('رمز المنتج: TEA-404')).toBeNull();
    expect(text('店舗コード：0512（本店）')).toBeNull();
    expect(text('TRAN CODE...: 5510')).toBeNull();
    expect(text('رمز الفرع: 0518')).toBeNull();
    expect(text('Offerta Casa 24 – cod. offerta CAS24-0611')).toBeNull();
    expect(text('Código do local de consumo 0051177')).toBeNull();
    expect(text('Je code 512 980 is daarom verlopen en werkt niet meer.')).toBeNull();
    expect(text('Compra APROBADA por $ 12.000,00 con tu tarjeta. Cod. autorizacion 552018.')).toBeNull();
  });

  it('a code named after it, typed last, asked for within minutes, or wrapped under a phone number (v8)', () => {
    expect(text('From: 60606 (short code)\nAcme: 5172 is your verification code. It expires in 5 minutes.')).toBe('5172');
    expect(text('Du er ved at oprette en annonce (nr. 88120, 4.500 kr.). Skriv qx7kdm i feltet for at bekræfte din e-mail.')).toBe(
      'qx7kdm',
    );
    expect(text('If all is right, enter Hq4mZ8t in the app to approve this payment.')).toBe('Hq4mZ8t');
    expect(text('اپنی ای میل کی تصدیق کے لیے ایپ میں کوڈ 52kqtm درج کریں۔')).toBe('52kqtm');
    expect(text('A new laptop wants to join your team. If that was you, enter wkdqx7 on it within 15 minutes.')).toBe('wkdqx7');
    const wrapped =
      'Il codice di verifica è 48213.\nSe non hai chiesto tu la modifica, chiama il Servizio Clienti al numero verde 800\n555 017.';
    expect(text(wrapped)).toBe('48213');
  });

  it('of two codes as likely, the one where the mail says what a code is for (v8)', () => {
    expect(text('Hallo Jana,\nCode 4471 - Lager Nord\nCode 5172, gültig 10 Minuten')).toBe('5172');
  });

  it('short words of other languages are whole words, not stems (v8)', () => {
    expect(text('Sahkan e-mel anda dengan memasukkan kod ini dalam aplikasi:\n481 206')).toBe('481206');
    expect(text('Skriv inn koden 4417 på iPaden.')).toBe('4417');
  });

  it('error codes in Hebrew, a mobile ending, Czech bank codes, a code of two words, Croatian kôd (v9)', () => {
    expect(text('סטטוס: פתוח (קוד שגיאה E-2210 בנתב)')).toBeNull();
    const ending = "When you sign in on a new device we'll send a 6-digit code to your mobile ending 0427, and you'll need to enter it.";
    expect(text(ending)).toBeNull();
    expect(text('Import bankovních výpisů pro kódy bank 0100, 0300 a 0800.')).toBeNull();
    expect(text('Ca bun venit în club:\nFolosește codul bunvenit15 la prima comandă.')).toBeNull();
    expect(text('Vaš aktivacijski kôd je:\n5120-7741\nUpišite ga u aplikaciju u roku od 30 minuta.')).toBe('51207741');
  });

  it('capitals of a login code, a code named after gateway headers, Hindi glued after, a digest under a meeting (v10)', () => {
    expect(text('Use it on the sign-in page.', 'KQZRT7 is your Acme login code')).toBe('KQZRT7');
    expect(text('To: +1 (415) 555-0142 (on-call phone)\nAcme: 6120 is your verification code. Do not share it.')).toBe('6120');
    expect(text('पोर्टल में लॉगिन के लिए आपका OTP 481920है। यह 10 मिनट तक मान्य है।')).toBe('481920');
    expect(text('রিডিম কোড GC8H-3KQ2-7MXP কার্ড নম্বর7788 2041 9937 1105 পিন6620')).toBeNull();
    const digest =
      'Meeting room 4 is booked for you at 10:30.\nSign-in\nSomeone is signing in on a new phone. Your verification code is 71530.';
    expect(text(digest)).toBe('71530');
  });

  it('fare, short and delivery-store codes; Finnish signing in; enrolling a device (v10)', () => {
    expect(text('Code tarif : PX20BD')).toBeNull();
    expect(text('From: ACME (short code 31210)\nSign-in alerts from your bank will follow.')).toBeNull();
    expect(text('担当営業所：本町センター（配達店コード 042-118）')).toBeNull();
    expect(text('Kirjautumiskoodisi on\n512 774\nAvoin lasku: 45,00 EUR, viite 1100 4471')).toBe('512774');
    const enrol = 'A new laptop is trying to join your profile. To let it in, enter 8kq3-wz7 in the enrollment window.';
    expect(text(enrol)).toBe('8kq3-wz7');
  });

  it('Indian PIN codes and HSN codes, fault codes, Arabic qualifiers after the code word, a tax ID wrapped (v11)', () => {
    expect(text('Deliver to:\nPriya Nair, 12 MG Road, Indiranagar, Bengaluru, Karnataka, PIN code 560038')).toBeNull();
    expect(text('Seller: Voltline Traders, HSN Code 8517')).toBeNull();
    expect(text('Kode gangguan : LOS-03 (sinyal hilang)')).toBeNull();
    expect(text('يرجى إعطاء موظف الفرع رمز السحب التالي:\n5120 7733\nالرمز صالح لمدة 30 دقيقة.')).toBe('51207733');
    const wrapped =
      'Introduce este código en la pantalla de acceso:\n581302 Caduca en 15 minutos. Si no has pedido acceder, ignora este mensaje. Librería Sol S.L. · Madrid · CIF\nB-81220931';
    expect(text(wrapped)).toBe('581302');
    expect(text('Give the agent this withdrawal confirmation code, or enter it on your phone:\n 718 209')).toBe('718209');
  });

  it('changing a password in Greek and Danish, Dutch "door", course, event and PNR codes, Chinese login codes (v12)', () => {
    expect(text('Αν δεν ήσασταν εσείς, αλλάξτε αμέσως τον κωδικό πρόσβασης και καλέστε το 18120.')).toBeNull();
    expect(text('Var det ikke dig? Skift din adgangskode med det samme og kontakt os på 70 12 40 50')).toBeNull();
    expect(text('Geef deze code door aan de medewerker in de winkel:\nBN-520417\nDe code vervalt na 30 minuten.')).toBe('520417');
    expect(text('Enter the door code 4471 at the gate.')).toBeNull();
    expect(text('आपने पाठ्यक्रम कोड PHY-2031 में लॉगिन का अनुरोध किया है।')).toBeNull();
    expect(text('PNR kodu: KX7T2M')).toBeNull();
    expect(text('如果在其他设备上登录，请输入登录码：k5w2nq')).toBe('k5w2nq');
    expect(text('Mã sự kiện: EVT-4410277')).toBeNull();
  });
});
