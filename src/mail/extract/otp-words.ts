// The words the OTP detector reads a code's surroundings by, in many languages: words that announce a code,
// words of other numbers (orders, money, phones, places, promotions), qualifiers that make a code word name
// another kind of code, and words of meetings. Generic language only: never a sender, a brand or a phrase of
// one corpus.
// biome-ignore-all format: the word lists read best packed by language, as written
import { codeOfSigningIn } from './otp-code-kinds.ts';
import { moreWords } from './otp-languages.ts';
import { SENTENCE_MARKS } from './otp-text.ts';
import { words } from './otp-wordset.ts';

// Words that say "here is a code": stems matched inside compounds (Bestätigungscode, verificatiecode, kodu).
export const CODE_WORDS = words(
  '~code', '~koodi', '~kode', '~kood', 'passcode', 'pin\\b', 'otp', 'one[- ]time', '2fa', 'two[- ]factor', 'verif', 'authenticat',
  'token', 'tan\\b', 'einmal', 'bestätig', 'sicherheits', 'anmelde', 'kennwort',
  'c[oó]digo', 'codice', 'clave', 'senha', 'contrase[ñn]a', 'mot de passe', 'usage unique', 'uso [úu]nico', 'monouso',
  '~kod', '~kód', '~kôd', 'weryfikac', 'jednorazow', 'ověřovací', 'doğrulama', 'şifre', 'engångs',
  'код', 'подтвержд', 'проверочн', 'одноразов', 'пароль',
  'κωδικ', 'رمز', 'كود', 'التحقق', 'كلمة المرور', 'لمرة واحدة', 'कोड', 'ओटीपी', 'mã', 'รหัส',
  'コード', '認証', '認證', '认证', '確認番号', '暗証番号', 'ワンタイム', 'パスコード', 'ログイン',
  '验证码', '驗證碼', '登录码', '登入码', '登入碼', '登錄碼', '校验码', '校驗碼', '动态码', '確認碼', '确认码', '验证', '驗證',
  '인증', '코드', '보안',
  // Languages added with detector v3: Romanian, Malay/Indonesian, Swahili, Croatian/Serbian, Vietnamese,
  // Hungarian, Finnish, Ukrainian, Persian, Hebrew, Hindi, Chinese "password".
  'cod\\b', 'codul', 'parol', 'autentific', 'autentica', 'tac\\b', 'pengesahan', 'kata sandi', 'uthibitisho', 'thibitisha',
  'lozink', 'jednokratn', 'xác minh', 'xác thực', 'mật khẩu', 'ellenőrző', 'vahvistus', 'kertakäyt',
  'підтвердж',
  'کد', 'تأیید', 'تایید', 'رمز عبور', 'קוד', 'סיסמ', 'חד-פעמי', 'חד פעמי', 'אימות',
  'पासवर्ड', 'वन टाइम', 'सत्यापन', '密码', '密碼', '一次性',
  // v4: Catalan, Serbian and Bulgarian Cyrillic
  'codi\\b', 'лозинк', 'једнократн', 'еднократн', 'парол', 'ওটিপি', 'কোড', 'পাসওয়ার্ড', 'যাচাই', '~kóð', 'lykilorð', 'msimbo',
  'tabbatar', 'lambar sirri', 'lambar shiga', 'குறியீ', 'சரிபார்ப்', 'கடவுச்சொல்', 'کوڈ', 'تصدیق', 'კოდ', 'ერთჯერად', 'პაროლ',
  ...moreWords('code'),
);

// Bookings and reservations: their confirmation numbers are no codes to type.
const BOOKINGS = [
  'booking', 'buchung', 'réservation', 'reserva', 'prenotazione', 'reservering', 'rezerwac', 'бронирован',
  'foglalás', 'varaus', 'bokning', 'rezervac', 'rezervác', 'rezervar', 'rezervăr', 'rezervasyon', 'κράτησ', 'đặt phòng', 'đặt chỗ', 'pemesanan', 'tempahan',
  'бронюв', 'резервац', 'הזמנ', 'رزرو', 'حجز', 'बुकिंग', 'การจอง', 'বুকিং', '予約', '预订', '預訂', '예약', 'rezervacij', 'broneeri', 'rezervējum', 'ჯავშ',
  'uhifadhi',
];
/** Words of bookings: a "confirmation number" under a booking's lines is the booking's. */
export const BOOKING_WORDS = words(...BOOKINGS);
/** Words of confirming, as a code word's qualifier: 確認番号, confirmation code. */
export const CONFIRM_WORDS = words(
  'confirm', 'bestätig', 'conferm', 'confirma', 'bevestig', 'potwierdz', 'подтвержд', 'підтвердж', 'onay', 'xác nhận', 'bekräft', 'bekræft',
  '確認', '确认', '확인',
);

const PROMOTIONS = [
  'promo', 'coupon', 'voucher', 'discount', 'gutschein', 'rabatt', 'rabais', 'réduction', 'descuento', 'cupón', 'cupom', 'desconto', 'sconto', 'korting', 'kupon', 'rabat', 'скидк', 'промокод', 'indirim', '割引', 'クーポン', '优惠', '折扣', '할인', '쿠폰', '% off',
  'diskon', 'diskaun', 'potongan', 'giảm', 'khuyến mãi', 'alennus', 'kedvezmény', 'reducere', 'έκπτωσ', 'sleva', 'zľav', 'знижк', 'отстъпк', 'popust',
  'allahindlus', 'atlaid', 'nuolaid', 'הנחה', 'تخفیف', 'خصم', 'छूट', 'ส่วนลด', 'ছাড়', 'descompte', '\\d+\\s?%',
];

// Words that say "this number is something else". Matched anywhere in the candidate's surroundings.
export const OTHER_WORDS = words(
  // orders, invoices, customers, references, bookings, tickets
  'order', 'bestell', 'commande', 'pedido', 'ordine', 'zamówien', 'заказ', 'sipariş', 'objednáv', 'beställ',
  'đơn hàng', 'hóa đơn', 'pesanan', 'tilaus', 'lasku', 'rendelés', 'számla', 'παραγγελ', 'τιμολόγ',
  'hrb\\b', 'hra\\b', 'handelsregister', 'registergericht', 'register', 'ust-?id', 'vat\\b', 'tax id', 'siret', 'siren', 'kvk', 'nip\\b', 'regon', 'cnpj', 'cpf\\b',
  'invoice', 'rechnung', 'factur', 'fattura', 'faktur', 'счёт', 'счет', 'fatura', '請求', '发票', '發票', '청구', '영수증',
  'receipt', 'quittung', 'reçu', 'recibo', 'ricevuta', 'kwit', 'чек',
  'customer (?:number|no|id)', 'kundennummer', 'kunden-?nr', 'numéro (?:de )?client', 'n° client', 'número de cliente', 'numero cliente', 'klantnummer', 'numer klienta',
  'account (?:number|no|ending)', 'kontonummer', 'vertragsnummer', 'contract',
  'reference', 'referenz', 'référence', 'referencia', 'riferimento', 'referentie', 'tickets?\\b', ...BOOKINGS,
  'iva\\b', 'mwst', 'btw\\b', 'рахун', 'платник', 'платіж', 'registrikood', 'reg\\. ?(?:nr|no)', 'y-tunnus', 'ičo\\b', 'kmkr', 'cui\\b',
  'nif\\b', 'cif\\b', 'pnr\\b', 'kontakt(?:e|a)? (?:os|oss)', 'καλέστε', 'oib\\b', 'pib\\b', 'edrpou', 'єдрпоу', 'număr (?:de )?client', 'numar client', 'طلب', 'فاتورة', 'الشحن',
  'iban', 'bic', 'swift', 'card ending', 'endet auf', 'end(?:s|ed|ing) (?:in|with)', '(?:mobile|phone|number|account) ending', 'mobile (?:number|no)', 'number on file', 'se terminant', 'terminant par', 'terminada en', 'terminado em',
  'terminando', 'che termina', 'eindigend op', 'kończąc', 'оканчивающ', 'заканчивающ', 'končící', 'slutter på', 'slutar på', 'päättyy', 'végződ',
  'se termină', 'λήγει', 'kết thúc bằng', 'berakhiran', 'закінчується', 'המסתיים', 'ลงท้าย', '末尾', '尾号', '尾號', '끝자리',
  'member', 'mitglied', 'membre', 'miembro', 'socio\\b', 'członk', 'участник', 'üye', 'medlem', 'jäsen',
  'deliver', 'livraison', 'livré', 'entrega', 'consegn', 'liefer', 'zugestellt', 'bezorg', 'dostaw', 'доставк', 'teslim', 'leverans', 'levering', 'toimitus',
  'ul\\.', 'iela', 'rue\\b', 'calle\\b', 'rua\\b', 'avenue', 'blvd', 'road\\b', 'gatan', 'katu\\b', 'utca', 'jalan', 'jl\\.', 'вул\\.', 'ул\\.',
  // shipping
  'tracking', 'sendung', 'paket', 'parcel', 'package', 'shipment', 'shipping', 'versand', 'suivi', 'colis', 'seguimiento', 'envío', 'rastreamento', 'spedizion', 'zending', 'przesyłk', 'отслежива', 'посылк', 'kargo', '追跡', '配送', '快递', '物流', '运单', '배송', '송장',
  // money
  'total', 'amount', 'price', 'betrag', 'summe', 'preis', 'montant', 'prix', 'importe', 'precio', 'valor', 'prezzo', 'importo', 'bedrag', 'prijs', 'kwota', 'cena', 'сумм', 'цена', 'tutar', 'fiyat', '金額', '金额', '价格', '금액', '가격',
  // phones and places
  'phone(?=\\s*(?:numb|no\\b|[:+(\\d]))', 'customer (?:service|care|support)', 'service client', 'kundenservice', 'servicio al cliente', 'atención al cliente', '고객센터', '客服', 'tel\\b', 'tel\\.', 'fax', 'telef', 'téléphone', 'телефон', '電話', '电话', '전화', 'hotline', 'call us', 'whatsapp', 'call\\b', 'ring us', 'rufen sie', 'appelez', 'llame', 'ligue', 'chiami', 'bel ons', 'zadzwoń', 'позвоните', 'зателефонуйте', 'arayın', 'اتصل', 'تماس بگیرید', 'कॉल', 'โทร', '致电', '致電',
  'pin ?कोड', 'पिन ?कोड', 'डिलीवरी', 'догов', 'платеж',
  'postal', 'zip', 'plz', 'postleitzahl', 'cep\\b', '~straße', '~strasse', 'street', 'suite',
  'checkout', 'credit', 'batch\\b', 'rrn\\b', 'stan\\b', 'thanh toán', 'پیگیری', 'تتبع', 'شناسه', 'user ?id', 'identifiant', 'identificador', 'идентификатор', 'מזהה',
  ...PROMOTIONS,
  ...moreWords('other'),
);

/** Words of promotions: a code word beside them names a discount, whatever verb asks for it. */
export const PROMO_WORDS = words(...PROMOTIONS);

// Words that make a code word name another kind of code: an invite code, a door code, a card's authorisation
// code, a postcode. Looked for in and around the code word itself.
const QUALIFIERS = words(
  'invit', 'referral', 'रेफ़रल', 'रेफरल', 'penukaran', 'tukarkan', 'refer a', 'einladung', 'empfehlung', 'parrain', 'convite', 'invito', 'uitnodig', 'zaprosz', 'приглаш', 'davet', '招待', '邀请', '초대',
  'gift', 'geschenk', 'cadeau', 'regalo', 'presente', 'prezent', 'подар', 'hediye',
  'auth\\b', 'chip\\b', 'tran\\b', 'hsn\\b', 'course\\b', 'kurs\\b', 'cours\\b', 'curso', 'corso', 'cursus', 'पाठ्यक्रम', '课程',
  'コース', '강좌', 'khóa học', 'sự kiện', 'event\\b', 'olay\\b', '事件', '이벤트', 'giới thiệu', 'rujukan', '추천', '推荐', '推薦', 'gangguan',
  'poskod', 'tarif', 'tariff', 'tariffa', 'short ?code', '店コード', '配達店', '営業所', 'offert', 'oferta', 'offer\\b', '店舗', '门店', '매장', 'consumo', 'fornecimento', 'suministro', 'fornitura',
  // errors and their codes: 오류 코드 E-4012
  'error', 'fehler', 'erreur', 'errore', 'erro\\b', 'błęd', 'ошибк', 'помилк', 'hata\\b', 'chyb', 'lỗi', '오류', 'エラー', '错误', '錯誤',
  'שגיאה', 'خطأ', 'त्रुटि', 'ข้อผิดพลาด', 'kód(?:y|ů)? bank',
  'học sinh', 'sinh viên', 'élève', 'étudiant', 'estudiante', 'alumno', 'aluno', 'studente', 'matr[íi]cul', 'matrikel',
  'indica[çc]', 'indique', 'destinat', 'recipient', 'polec', 'referid', 'bevált', 'įmok', 'mokėjim',
  'ajándék', 'dárkov', 'darčekov', 'lahja', 'presentkort', 'gavekort', 'cadou', 'δώρο', 'quà tặng', 'hadiah', 'подаруно', 'подарък', 'poklon',
  'darilo', 'kinkekaart', 'dāvan', 'dovan', 'מתנה', 'هدیه', 'هدية', 'उपहार', 'ของขวัญ', 'উপহার', 'ギフト', '礼品', '禮品', '선물', '기프트',
  'product', 'art[íi]culo', 'articolo', 'artigo', 'zbož', 'produkt', 'produit', 'producto', 'prodotto', 'produs', 'produto', 'sku\\b', 'item\\b', 'artikel', 'article', 'товар', 'ürün', 'สินค้า', '商品', '상품', 'tuote',
  'version', 'versio', 'verze', 'wersj', 'верси', 'sürüm', 'build\\b',
  'appointment', 'programare', 'termin(?:e|s)?\\b', 'rendez-vous', 'cita\\b', 'appuntamento', 'afspraak', 'wizyt', 'randevu', 'نوبت', 'موعد',
  'department', 'abteilung', 'département', 'departament', 'подразделени', 'cost\\b', 'appr\\b', 'trace\\b', 'filiale', 'sucursal', 'oddział', 'pobočk', 'शाखा', 'শাখা', 'สาขา', '支店', '支行', '지점', '교환', '상품권',
  'customer', 'client', 'cliente', 'kunden', 'klant', 'klient',
  'box\\b', 'lockbox', 'key ?safe', 'safe\\b', 'schlüssel', 'tresor', 'cassett', 'boîte', 'caja', 'caixa', 'kastje', 'skrytk', 'skrzynk', 'ящик',
  'сейф', 'sejf', 'seif', 'kutu', 'nyckelsk', 'nøgleboks', 'nøkkelboks', 'avainboks',
  'door(?= ?(?:code|entry|pin))', 'the door', 'gate', 'entry', 'porte\\b', 'digicode', 'tür', 'portone', 'puerta', 'portão', 'deur', 'drzwi', 'домофон', 'kapı',
  // bank details, gift cards and licences: their codes are not typed in to sign in
  'sort\\b', '~sort ?code', 'branch', 'takkod', 'bank ?code', 'kód banky', 'kod banku', 'код банку', 'код банка', 'code banque', 'code guichet', 'ifsc', 'agência', 'sucursal', 'routing', 'bsb\\b', 'blz\\b', 'bankleitzahl', 'claim', 'redeem', 'redemption', 'einlös', 'canje', 'resgat', 'riscatt',
  'licen[cs]', 'lizenz', 'product key', 'serial', 'seriennummer',
  '~postcode', 'pincode', '~postnummer', 'post ?nr', 'code postal', 'c[oó]digo postal', 'codice postale', 'cod po[șş]tal', 'البريدي', 'kod pocztowy', 'почтов', 'posta kodu', '郵便番号', '邮编', '우편번호',
  ...moreWords('qualifier'),
);
const NOT_A_LOGIN = { test: (text: string) => OTHER_WORDS.test(text) || QUALIFIERS.test(text) };
// Qualifiers of a language that writes them after the noun (رمز الفرع, a branch's code): only after the code word,
// where before it they belong to something else ("give the branch employee the withdrawal code").
const QUALIFIERS_AFTER = words('الإحالة', 'إحالة', 'منتج', 'المنتج', 'الفرع', 'فرع');

// Verbs that ask for a code to be typed in: "enter this code on the checkout page" names a code to enter, whatever
// the words after it say.
/** Verbs of typing in, the narrower part of ENTRY_WORDS: what one does with a code and with little else. */
export const TYPING = [
  'enter', 'type', 'paste', 'input', 'key (?:it )?in', 'yi amfani', 'eingeben', 'saisi', 'entrez', 'introduc', 'ingres', 'digite', 'insira', 'inserisci', 'voer',
  'wpisz', 'введите', 'введіть', 'внесите', 'унесите', 'indtast', 'syötä', 'zadejte', 'zadajte', 'adja meg', 'introdu',
  'πληκτρολογ', 'nhập', 'masukkan', 'ketik', 'girin', 'הזינו', 'הזן', 'وارد کنید', 'أدخل', 'दर्ज', 'กรอก', 'ป้อน', '入力', '输入', '輸入', '입력',
  'shigar da', 'உள்ளிடவும்', 'درج کریں', 'შეიყვანეთ', 'weka\\b',
];
export const ENTRY_WORDS = words(
  ...TYPING, 'gib', 'ange', 'skriv',
  'use\\b', 'usa\\b', 'utilise', 'utilice', 'utiliza', 'verwende', 'nutze', 'gebruik', 'użyj', 'используйте', 'kullan', 'använd', 'brug\\b', 'bruk\\b',
  'käytä', 'použij', 'használ', 'folosește', 'χρησιμοποι', 'sử dụng', 'gunakan', 'використ', 'използвай', 'koristi', 'uporabi', 'kasuta', 'izmanto',
  'naudok', 'השתמש', 'استفاده', 'استخدم', 'उपयोग', 'ใช้', 'ব্যবহার', '使用', '사용',
  ...moreWords('entry'),
);
// Capitals right after a code word make it a register's or a form's code (Код ЄДРПОУ, Codice SDI); a code word
// in a text that is not itself in capitals. The capitals of a one-time code are allowed.
const CAPITALS_AFTER = /^\s+\p{Lu}{2,8}(?![\p{L}\p{N}])/u;
const CODE_CAPITALS = /^\s+(?:OTP|PIN|TAN|SMS|2FA|MFA)\b/;

// "We never ask for your code", "never share it": a code word in a warning names no code.
const NEVER_WORDS = words(
  'never', 'niemals', 'jamais', 'nunca', 'nooit', 'nigdy', 'никогда', 'asla', 'aldrig', 'aldri\\b', 'koskaan', 'nikdy',
  'soha', 'niciodată', 'ποτέ', 'không bao giờ', 'tidak pernah', 'tidak akan pernah', 'ніколи', 'никога', 'nikad', 'nikoli', 'kunagi', 'nekad',
  'niekada', 'לעולם', 'هرگز', 'أبدا', 'कभी नहीं', 'कभी भी', 'ஒருபோதும்', 'کبھی', 'არასდროს', 'ไม่เคย', 'কখনও', '絶対に', '决不', '絕不', '절대',
  ...moreWords('never'),
);

// Where a code word's own sentence, clause or field begins and ends.
const QUALIFIER_STOPS = new RegExp(`[,;.，${SENTENCE_MARKS}]|:\\s*[^\\s:]+\\s`, 'gu');
const LAST_SENTENCE = new RegExp(`[.${SENTENCE_MARKS}][^.${SENTENCE_MARKS}]*$`, 'u');
const SENTENCE_STOP = new RegExp(`[.${SENTENCE_MARKS}\\n]`, 'u');

/** A code word in `text` that is not qualified into another kind of code by the words right around it. */
export function labelIn(text: string): boolean {
  for (const [start, end] of CODE_WORDS.find(text)) {
    // A qualifier before it counts within three words (eight characters in Chinese and Japanese, written without
    // spaces), not across a comma, a sentence's end or a field's value ("Dear Customer, your OTP"; "AUTH CODE: 6618
    // OTP: 294857"), and only from the verb that asks
    // for the code on ("placing order 77, enter this code": no). The verbs are looked for only when a qualifier is
    // there: most code words have none.
    const near = Math.max(0, start - (UNSPACED.test(text.slice(Math.max(0, start - 3), start)) ? 8 : 30), wordsBefore(text, start, 3));
    const from = near + 1 + Math.max(-1, ...[...text.slice(near, start).matchAll(QUALIFIER_STOPS)].map((m) => m.index));
    if (NOT_A_LOGIN.test(text.slice(from, end))) {
      const verb = Math.max(from, ...ENTRY_WORDS.find(text.slice(from, start)).map(([, e]) => from + e));
      if (verb === from || NOT_A_LOGIN.test(text.slice(verb, end))) continue;
    }
    const lead = text.slice(Math.max(0, start - 60), start);
    if (NEVER_WORDS.test(lead.slice(lead.search(LAST_SENTENCE) + 1))) continue;
    const after = text.slice(end, end + 20);
    const word = text.slice(start, end);
    // "Change your password": the password itself, not a code sent for it.
    if (PASSWORD_WORDS.test(word) && CHANGE_WORDS.test(text.slice(from, start))) continue;
    const qualified = NOT_A_LOGIN.test(text.slice(start, end + 20)) || QUALIFIERS_AFTER.test(text.slice(end, end + 20));
    if (qualified && (!askedFor(text, start, end, word) || PROMO_WORDS.test(text.slice(start, end + 60))))
      continue;
    // Also an abbreviation among capitals is a name's part (Dear TAN JUN HAO), not a code word.
    const abbreviation = /^(?:TAN|PIN)$/.test(word);
    if (CAPITALS_AFTER.test(after) && !CODE_CAPITALS.test(after) && (word !== word.toUpperCase() || abbreviation)) continue;
    if (!codeOfSigningIn(text, start, end)) continue;
    return true;
  }
  return false;
}


export const PASSWORD_WORDS = words(
  'password', 'passwort', 'kennwort', 'mot de passe', 'contraseña', 'senha', 'пароль', 'парол', 'hasł', 'şifre', 'סיסמ', 'modpas',
  'wachtwoord', 'heslo', 'jelszó', 'parol', 'lozink', 'salasana', 'adgangskode', 'passord', 'lösenord', 'mật khẩu', 'kata sandi',
  'पासवर्ड', 'รหัสผ่าน', '密码', '密碼', 'パスワード', '비밀번호', 'كلمة المرور', 'رمز عبور',
);
const CHANGE_WORDS = words(
  'chang', 'reset', 'änder', 'zurücksetz', 'réinitialis', 'cambi', 'restablec', 'alter', 'redefin', 'reimpost', 'wijzig', 'zmień',
  'смен', 'измен', 'сброс', 'değiştir', 'sıfırla', 'chanje', 'החלף', 'איפוס', 'تغيير', 'إعادة تعيين', 'تغییر', 'बदल', 'เปลี่ยน', '更改',
  '修改', '重置', 'αλλάξ', 'skift', 'byt\\b', 'endre',
);

/** A verb of typing asks for the code word: before it, or after it in its sentence where the verb comes last (아래
 * 인증번호를 예약 변경 화면에 입력해 주세요). */
function askedFor(text: string, start: number, end: number, word: string): boolean {
  if (ENTRY_WORDS.test(text.slice(Math.max(0, start - 30), start))) return true;
  if (!VERB_LAST.test(word)) return false;
  const rest = text.slice(end, end + 30);
  const stop = rest.search(SENTENCE_STOP);
  return ENTRY_WORDS.test(stop < 0 ? rest : rest.slice(0, stop));
}

// Words of signing in and confirming: a subject that holds nothing but a code and these is a code's subject.
export const ACCESS = [
  'sign[- ]?in', 'log[- ]?in', 'signin', 'anmeld', 'connexion', 'iniciar sesi', 'inicio de sesi', 'accedi', 'accesso', 'entrar', 'acesso',
  'inloggen', 'aanmeld', 'logowan', 'zaloguj', 'вход', 'войти', 'giriş', 'inloggning', 'logga in', 'log ind', 'logg inn', 'kirjaud',
  'přihlá', 'prihlás', 'bejelentkez', 'autentific', 'σύνδεσ', 'đăng nhập', 'masuk', 'log masuk', 'вхід', 'вписване', 'prijav', 'sisselogi',
  'pieslēg', 'prisijung', 'התחברות', 'ورود', 'تسجيل الدخول', 'लॉग इन', 'เข้าสู่ระบบ', 'লগ ইন', 'サインイン', '登录', '登入', '로그인',
  'verify', 'confirm', 'approv', 'enrol', 'kirjautu', 'bekræft', 'bekreft', 'bekräft', 'bestätig', 'vérifi', 'confirma', 'verifica', 'bevestig', 'potwierdź', 'подтверд', 'doğrula', 'sign[- ]?up',
  // pairing a device: "Pair this device and enter:"
  'pair\\b', 'pairing', 'koppel', 'associer', 'emparej', 'pareamento', 'abbina', 'sparuj', 'сопряж', 'eşleştir', 'ペアリング', '配对', '配對', '페어링',
  ...moreWords('access'),
];
export const ACCESS_WORDS = words(...ACCESS);

// Month names and their short forms in the languages of Latin and Cyrillic script: "25-27 Juni" is a date.
export const MONTH_AFTER = new RegExp(
  `^\\s?(?:${[
    'jan', 'feb', 'f[eé]v', 'mar', 'm[äa]r', 'apr', 'avr', 'abr', 'ma[iyj]', 'mei', 'jun', 'jui', 'jul', 'lug', 'aug', 'ago', 'ao[uû]',
    'sep', 'set', 'oct', 'okt', 'ott', 'nov', 'dec', 'dez', 'dic', 'des', 'gen', 'giu', 'agu', 'stycz', 'lut', 'kwie', 'czerw', 'lip',
    'sierp', 'wrze', 'paźdz', 'listop', 'grud', 'янв', 'фев', 'мар', 'апр', 'ма[йя]', 'июн', 'июл', 'авг', 'сен', 'окт', 'ноя', 'дек',
  ].join('|')})\\p{L}*\\.?(?![\\p{L}])`,
  'iu',
);

// Meetings and dial-ins: their PINs and passcodes are codes of a kind, but not one-time codes to sign in with.
// Anywhere in the same part of the message, they count against every candidate.
export const MEETING_WORDS = words(
  'meeting', 'dial[- ]in', 'conference', 'webinar', 'participant', 'besprechung', 'konferenz', 'teilnehm', 'einwahl',
  'réunion', 'reunión', 'reunião', 'riunione', 'vergadering', 'spotkani', 'встреч', 'конференц', 'toplantı',
  'möte', 'schůzk', '会議', '会议', '會議', '회의', 'begin:vcalendar',
  // more languages with detector v4
  'kokou', 'møde', 'møte', 'sammanträde', 'porada', 'értekezlet', 'megbeszélés', 'ședinț', 'întâlnire', 'σύσκεψ', 'συνάντησ',
  'cuộc họp', 'rapat', 'mesyuarat', 'нарад', 'зустріч', 'среща', 'sastan', 'sestan', 'sanāksm', 'koosolek', 'susitikim', 'stretnut',
  'פגישה', 'جلسه', 'اجتماع', 'बैठक', 'ประชุม', 'মিটিং', 'সভা', '미팅', 'ミーティング', 'reunion\\b', 'vergader',
  ...moreWords('meeting'),
);

// A code the message itself says is dead ("The code 274019 … has expired"): not one to enter. Past forms only,
// so that "expires in 10 minutes" does not count.
export const EXPIRED_WORDS = words(
  'ha(?:s|ve) (?:now |already )?expired', 'is expired', 'expired and', 'no longer valid', 'no longer be used', 'is invalid',
  'abgelaufen', 'nicht mehr gültig', 'a expiré', 'est expiré', "n'est plus valide", 'ha caducado', 'ha expirado', 'caducó', 'expiró',
  'expirou', 'está expirado', 'è scaduto', 'è scaduta', 'is verlopen', 'verlopen\\b', 'wygasł', 'истёк', 'истек', 'süresi doldu', 'vypršel',
  '期限切れ', '有効期限が切れ', '已过期', '已過期', '已失效', '만료되었',
  // v4
  'gått ut', 'inte längre', 'er udløbet', 'er udløpt', 'har utløpt', 'ikke længere gyldig', 'ikke lenger gyldig', 'vanhentunut', 'ei ole enää voimassa',
  'lejárt', 'a expirat', 'nu mai este valabil', 'έληξε', 'đã hết hạn', 'sudah kedaluwarsa', 'telah kedaluwarsa', 'sudah kadaluarsa', 'telah tamat',
  'закінчився', 'більше не дійсн', 'פג תוקפ', 'منقضی شده', 'انتهت صلاحي', 'समाप्त हो गया', 'หมดอายุแล้ว', 'изтече', 'istekao', 'istekla',
  'je potekla', 'je potekel', 'on aegunud', 'ir beidzies', 'nebegalioja', 'ha caducat', 'ha expirat', 'истекао', 'истекла', 'больше не действ',
  'காலாவதியாகிவிட்ட', 'காலாவதியானது', 'ختم ہو چکا', 'ვადა გაუვიდა', 'ya ƙare', 'geçersiz', 'süresi dolmuş', 'ungültig geworden', 'non è più valido', 'ya no es válido', 'não é mais válido', 'niet meer geldig', 'nie jest już ważny',
  ...moreWords('expired'),
);

// The subject of the message, as a body names it when the code is there and nowhere else.
const SUBJECT_WORDS = words(
  'subject', 'betreff', 'objet', 'asunto', 'assunto', 'oggetto', 'onderwerp', 'temat', 'тем[аеуы](?!\\p{L})', 'konu', 'ämne', 'emne',
  'předmět', 'predmet', 'aihe', 'tárgy', 'subiect', 'θέμα', 'tiêu đề', 'subjek', 'subyek', 'tema', 'teema', 'temats',
  '件名', '主题', '主旨', '標題', '제목', 'נושא', 'موضوع', 'विषय', 'หัวเรื่อง', 'বিষয়', 'efnisl', 'kichwa',
  ...moreWords('subject'),
);

/** A code word and a word for the subject within a few words of each other: "enter the code from the subject". */
export function pointsAtSubject(body: string | null): boolean {
  if (!body || !SUBJECT_WORDS.test(body)) return false;
  const codes = CODE_WORDS.find(body);
  return SUBJECT_WORDS.find(body).some(([start, end]) => codes.some(([s, e]) => s < end + 60 && e > start - 60));
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const VERB_LAST = /[\p{Script=Hangul}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** Where the `n`th word before `at` starts (0 if there are fewer). */
function wordsBefore(text: string, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n && i > 0; k++) {
    while (i > 0 && /\s/.test(text[i - 1]!)) i--;
    while (i > 0 && !/\s/.test(text[i - 1]!)) i--;
  }
  return i;
}
