// The words a link's kind is read from, in the languages of the mail people sign up with (English, German,
// French, Spanish, Portuguese, Italian, Dutch, Polish, Russian, Turkish, Japanese, Chinese, Korean, Arabic,
// Hebrew; and Hindi, Vietnamese, Greek). Generic language only: never a sender, a brand or a phrase of one
// corpus. Text is matched folded (see fold); a word of an alphabetic script must start a word (`log in`, not
// `catalog in`) unless marked `~` (found inside compounds: Passwortänderung).
// biome-ignore-all format: the word lists read best packed by language, as written

const GREEK_ACCENTED = /[άέήίόύώϊϋΐΰ]/g;
const GREEK_PLAIN: Record<string, string> = { ά: 'α', έ: 'ε', ή: 'η', ί: 'ι', ό: 'ο', ύ: 'υ', ώ: 'ω', ϊ: 'ι', ϋ: 'υ', ΐ: 'ι', ΰ: 'υ' };

/**
 * Text as the words are matched against it: compatibility forms folded (full-width letters, ligatures),
 * lower-cased, the dot Turkish İ leaves dropped, Greek accents dropped (capitals are written without them).
 */
export function fold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replaceAll('\u0307', '')
    .replace(GREEK_ACCENTED, (c) => GREEK_PLAIN[c]!);
}

/** Leave a list of mail: unsubscribe, opt out, or choose which mail to receive (preferences, notification settings). */
export const UNSUBSCRIBE = words(
  'unsubscri', 'unsub\\b', 'opt[- ]?out', 'stop receiving', 'no longer (?:wish to )?receive', 'remove me from',
  '~abmelden', 'abbestell', 'austragen', '~abmeldung', 'keine (?:e-mails|newsletter) mehr',
  'd[ée]sabonn', 'd[ée]sinscri', 'ne plus recevoir',
  'darse de baja', 'date de baja', 'dar(?:me|te|se)? de baja', 'cancelar (?:la |tu |su )?suscripci[óo]n', 'desuscri', 'dejar de recibir',
  'descadastr', 'cancelar (?:a |sua )?inscri[çc][ãa]o', 'deixar de receber', 'sair da lista',
  'disiscri', 'annulla(?:re)? (?:l\'|la )?iscrizione', 'cancella(?:ti|re)? (?:l\'|la )?iscrizione', 'non ricevere pi[uù]',
  'afmelden', 'uitschrijv', 'uitschrijf',
  'wypisz', 'wypisa[ćc]', 'rezygnuj', 'rezygnacj', 'anuluj subskrypcj',
  'отписат', 'отписк', 'отказаться от рассылк',
  'abonelikten [çc]ık', 'aboneli[ğg]i iptal', 'listeden [çc]ık',
  '配信停止', '配信解除', '購読解除', '購読停止', 'メール停止', '登録解除',
  '退订', '退訂', '取消订阅', '取消訂閱',
  '수신\\s*거부', '수신\\s*거절', '구독\\s*취소', '구독\\s*해지',
  'إلغاء الاشتراك', 'الغاء الاشتراك', 'إلغاء الإشتراك', 'إلغاء اشتراك',
  'להסרה', 'הסרה מ', 'הסר אותי', 'הסירו אותי', 'ביטול (?:ה)?מנוי', 'ביטול (?:ה)?הרשמה',
  'सदस्यता समाप्त', 'अनसब्सक्राइब', 'h[uủ]y đăng ký', 'hu[ỷy] đăng ký', 'απεγγραφ', 'διαγραφ[ήη] από τη λίστα',
  // which mail to receive
  'manage (?:your |my )?(?:e-?mail |mail |notification |communication |newsletter |subscription )?(?:preferences|settings|subscriptions|notifications)',
  '(?:e-?mail|notification|communication|newsletter|subscription|mailing) (?:preferences|settings)', 'preference cent',
  'update (?:your |my )?(?:e-?mail )?preferences',
  '~e-mail-einstellungen', '~benachrichtigungseinstellungen', '~newsletter-einstellungen', 'einstellungen verwalten', 'präferenzen',
  'g[ée]rer (?:mes |vos |les )?(?:pr[ée]f[ée]rences|abonnements|notifications)', 'pr[ée]f[ée]rences (?:de |d\'|des )?(?:e-?mail|communication|notification|newsletter)',
  'gestionar (?:tus |mis |las )?(?:preferencias|suscripciones|notificaciones)', 'preferencias de (?:correo|e-?mail|notificaci)',
  'gerenciar (?:suas |minhas |as )?(?:prefer[êe]ncias|inscri[çc][õo]es|notifica[çc][õo]es)', 'prefer[êe]ncias de (?:e-?mail|notifica)',
  'gestisci (?:le |i )?(?:preferenze|iscrizioni|notifiche)', 'preferenze (?:e-?mail|di notifica|newsletter)',
  'voorkeuren (?:beheren|wijzigen|aanpassen)', '~e-?mailvoorkeuren', 'meldingsinstellingen',
  'zarządzaj (?:preferencjami|subskrypcjami|powiadomieniami)', 'ustawienia (?:powiadomień|newslettera|e-?mail)',
  'управл[а-я]* (?:подписк|рассылк|уведомлени)', 'настройки (?:рассылк|уведомлени|подписк)',
  'e-posta tercih', 'tercihleri(?:ni|nizi)? yönet', 'bildirim ayarlar',
  '配信設定', 'メール設定', '通知設定', '配信の設定', '订阅设置', '邮件偏好', '通知设置', '訂閱設定', '電子報設定',
  '수신\\s*설정', '알림\\s*설정', '이메일\\s*설정', '구독\\s*관리', 'إدارة التفضيلات', 'تفضيلات البريد', 'إعدادات الإشعارات',
  'ניהול העדפות', 'הגדרות דיוור', 'הגדרות התראות', 'ईमेल प्राथमिकता', 'सूचना सेटिंग', 't[uù]y ch[oọ]n email', 'c[aà]i đặt thông báo',
  'quản lý (?:đăng ký|thông báo)', 'προτιμήσεις (?:email|ηλεκτρονικ)', 'ρυθμίσεις ειδοποιήσεων',
);

/** A password, in any of the languages: with nothing else said, a link about it is one to set it anew. */
export const PASSWORD = words(
  'password', 'passwort', '~kennwort', 'mot de passe', 'contrase[ñn]a', 'senha', 'wachtwoord', 'has[łl][oa]', 'пароль', 'пароля', 'şifre',
  'パスワード', '密码', '密碼', '비밀번호', '암호', 'كلمة المرور', 'كلمة السر', 'סיסמ', 'पासवर्ड', 'mật khẩu', 'κωδικ[όο] πρόσβασης',
);
/** Setting something anew or getting it back. */
/** Setting something anew or getting an account back; words of forgetting alone are not enough ("don't forget"). */
export const RESET = words(
  'reset', 'forgot (?:your |my )?(?:password|username|login)', 'recover (?:your |my )?account', 'account recovery',
  '~zurücksetzen', '~zurückzusetzen', 'neues passwort', 'r[ée]initialis', 'nouveau mot de passe',
  'restablec', 'nueva contrase', 'redefin', 'nova senha', 'reimposta', 'nuova password',
  'opnieuw instellen', 'nieuw wachtwoord', 'resetuj', 'zresetuj', 'resetowa', 'nowe has',
  'сброс', 'новый пароль', 's[ıi]f[ıi]rla', 'yeni şifre',
  'リセット', '再設定', '重置', '重设', '重設', '재설정', 'إعادة تعيين', 'اعادة تعيين', 'איפוס',
  'रीसेट', 'đặt lại', 'επαναφορ',
);

/** Being asked to join someone: an invitation to a team, a workspace, a document, an event (RSVP). */
export const INVITE = words(
  'rsvp', 'accept', 'aceptar', 'aceitar', 'accetta', 'zaakceptuj', 'akceptuj', 'принять', 'kabul et', '参加する', '接受', '수락', 'قبول',
  'zusagen', 'confirm(?:ez)? (?:your |votre |my )?(?:attendance|participation|pr[ée]sence|rsvp)', 'teilnahme bestätigen',
  'confirmar (?:tu |sua |su )?(?:asistencia|presen[çc]a|participa)', 'conferma (?:la tua |la )?partecipazione',
  'invit', 'join (?:the |our |your |my |this )?(?:team|workspace|organi[sz]ation|project|group|board|channel|space|household|family|account)',
  '~einladung', 'eingeladen', 'einladen', 'beitreten',
  'rejoindre', 'accepter l\'invitation',
  'invitaci[óo]n', 'invitad', '[úu]nete', 'unirte', 'unirse',
  'convite', 'convidad', 'convidou', 'junte-se', 'juntar-se',
  'invito', 'invitat', 'unisciti',
  'uitnodig', 'uitgenodigd',
  'zaprosz', 'dołącz do',
  'приглаш', 'пригласил', 'присоедин',
  'davet',
  '招待', '邀请', '邀請', '초대',
  'دعوة', 'دعوتك', 'الدعوة', 'قبول الدعوة', 'انضم إلى',
  'הוזמנת', 'להצטרף', 'הצטרף', 'הצטרפו', 'את ההזמנה',
  'आमंत्रण', 'निमंत्रण', 'आमंत्रित', 'शामिल हों', 'lời mời', 'được mời', 'πρόσκληση', 'προσκεκλημέν', 'προσκαλ',
);

/** Signing in. */
export const SIGN_IN = words(
  'sign[- ]?in', 'log[- ]?in', 'log me in', 'sign me in',
  'anmelden', 'einloggen', 'login',
  'se connecter', 'connectez', 'me connecter', 'connexion',
  'iniciar sesi[óo]n', 'inicia sesi[óo]n', 'ingresar', 'ingresa\\b', 'acceder',
  'entrar', 'fazer login', 'iniciar sess[ãa]o', 'acessar',
  'accedi', 'accesso', 'entra\\b',
  'inloggen', 'aanmelden',
  'zaloguj', 'logowani',
  'войти', 'вход', 'авторизоват',
  'giriş yap', 'oturum a[çc]',
  'ログイン', 'サインイン', '登录', '登入', '登錄', '로그인',
  'تسجيل الدخول', 'سجل الدخول', 'سجّل الدخول', 'تسجيل دخول',
  'התחבר', 'התחברות', 'להתחבר', 'כניסה',
  'लॉग इन', 'लॉगिन', 'साइन इन', 'đăng nhập', 'σύνδεση', 'συνδεθείτε', 'είσοδος',
);
/** A link that signs in by itself, named as such. */
export const MAGIC = words(
  'magic', 'passwordless', 'one[- ]click (?:sign|log)', '(?:sign|log)[- ]?in link', 'login link', 'one[- ]time link',
  '~anmeldelink', 'lien de connexion', 'enlace de (?:inicio de sesi[óo]n|acceso)', 'link de acesso', 'link di accesso',
  'inloglink', 'link do logowania', 'ссылка для входа', 'giriş bağlantısı', 'ログインリンク', 'ログイン用リンク',
  '登录链接', '登入連結', '로그인 링크', 'رابط تسجيل الدخول', 'קישור התחברות', 'קישור כניסה',
  'लॉगिन लिंक', 'liên kết đăng nhập', 'σύνδεσμος σύνδεσης',
);

/** Proving an address or activating an account: strong on their own. */
export const VERIFY = words(
  'verif', 'activat', 'validat', 'valider', 'validar', 'convalid',
  '~verifizier', '~aktivier', 'freischalt', 'vérifi', 'activer', 'verificar', 'activar', 'ativar', 'attiva',
  'verifieer', 'verifiër', 'activeer', 'activeren', 'zweryfikuj', 'weryfikac', 'aktywuj', 'aktywac', 'верифик', 'активир',
  'doğrula', 'etkinleştir', 'aktifleştir', '認証', '有効化', '本登録', '验证', '驗證', '激活', '啟用', '启用', '인증', '활성화',
  'التحقق', 'تحقق', 'تفعيل', 'אימות', 'אמתו', 'אמת את', 'הפעלת',
  'सत्यापित', 'सत्यापन', 'xác minh', 'kích hoạt', 'επαλήθευ', 'ενεργοποι',
);
/** Confirming: proof of an address unless what is confirmed is something else (an order, a booking). */
export const CONFIRM = words(
  'confirm', '~bestätig', 'confirmer', 'confirmar', 'confirme', 'conferm', 'bevestig', 'potwierd', 'подтверд', 'onayla',
  'تأكيد', 'أكد', 'אישור', 'אשרו', 'אשר את', 'पुष्टि', 'xác nhận', 'επιβεβαι',
);
/** "Check" as much as "confirm": proof of an address only when an address is named. */
export const CHECK = words('確認', '确认', '확인');
/** What an address proof is about. */
export const ADDRESS = words(
  'e-?mail', 'address', 'account', 'registration', 'sign[- ]?up', 'subscription', 'subscribe',
  'adresse', 'konto', 'registrierung', 'anmeldung', 'abonnement', 'compte', 'inscription',
  'correo', 'direcci[óo]n', 'cuenta', 'registro', 'suscripci', 'endere[çc]o', 'conta\\b', 'cadastro', 'inscri[çc]',
  'indirizzo', 'iscrizione', 'registrazione', 'adres', 'registratie', 'inschrijving', 'rejestrac', 'subskrypc',
  'почт', 'адрес', 'аккаунт', 'учетн', 'учётн', 'регистрац', 'подписк', 'e-posta', 'hesab', 'kayıt', 'üyelik', 'abonelik',
  'メール', 'アドレス', 'アカウント', '登録', '会員', '邮箱', '邮件', '地址', '账号', '账户', '帳號', '帳戶', '注册', '註冊', '订阅', '訂閱', '電子郵件',
  '이메일', '메일', '주소', '계정', '가입', '구독', 'البريد', 'الحساب', 'حسابك', 'التسجيل', 'الاشتراك', 'عنوان',
  'אימייל', 'מייל', 'דוא"ל', 'דואר', 'חשבון', 'הרשמה', 'כתובת',
  'ईमेल', 'खाता', 'पता', 'tài khoản', 'địa chỉ', 'đăng ký', 'λογαριασμ', 'διεύθυνση', 'εγγραφ',
);
/** Things confirmed that are not an address: an order, a booking, a payment, an appointment. */
export const NOT_ADDRESS = words(
  'order', 'booking', 'reservation', 'appointment', 'payment', 'purchase', 'attendance', 'delivery', 'transaction', 'transfer',
  'bestell', 'buchung', 'termin', 'zahlung', 'commande', 'r[ée]servation', 'rendez-vous', 'paiement',
  'pedido', 'reserva', 'cita\\b', 'pago', 'compra', 'agendamento', 'pagamento', 'ordine', 'prenotazion', 'appuntamento',
  'bestelling', 'boeking', 'afspraak', 'betaling', 'zamówieni', 'rezerwac', 'wizyt', 'płatnoś', 'заказ', 'бронир', 'оплат',
  'sipariş', 'rezervasyon', 'randevu', 'ödeme', '注文', '予約', '支払', '订单', '訂單', '预约', '預約', '支付', '付款',
  '주문', '예약', '결제', 'طلبك', 'الطلب', 'حجز', 'موعد', 'الدفع', 'תשלום',
  'ऑर्डर', 'भुगतान', 'đơn hàng', 'thanh toán', 'đặt chỗ', 'παραγγελ', 'πληρωμ', 'κράτηση',
);

/** Words that say nothing of where a link leads: "click here", "this link", "continue". */
export const GENERIC = words(
  'click', 'tap', 'press', 'here', 'this', 'that', 'the', 'link', 'button', 'below', 'above', 'now', 'go', 'open', 'continue', 'visit', 'to', 'on',
  'hier', 'klicken', 'klick', 'tippen', 'diesen', 'dieser', 'den', 'jetzt', 'weiter', 'öffnen',
  'ici', 'cliquez', 'cliquer', 'ce', 'lien', 'appuyez', 'continuer', 'sur',
  'aquí', 'aqui', 'haga', 'haz', 'clic', 'pulse', 'pulsa', 'este', 'enlace', 'continuar', 'en',
  'clique', 'toque', 'neste', 'nesse', 'link', 'qui', 'clicca', 'tocca', 'questo', 'continua', 'su',
  'klik', 'deze', 'doorgaan', 'kliknij', 'tutaj', 'ten', 'dalej', 'w',
  'нажмите', 'здесь', 'эту', 'ссылк', 'по', 'перейти', 'продолжить', 'сюда',
  'buraya', 'tıklayın', 'tıkla', 'bu', 'bağlantı', 'devam',
  'こちら', 'ここ', 'クリック', 'リンク', '続ける', '点击', '點擊', '这里', '這裡', '此处', '链接', '連結', '继续', '繼續',
  '여기', '클릭', '링크', '계속', 'انقر', 'اضغط', 'هنا', 'الرابط', 'כאן', 'לחץ', 'לחצו', 'קישור', 'המשך',
  'यहाँ', 'यहां', 'क्लिक', 'लिंक', 'करें', 'nhấp', 'bấm', 'vào', 'đây', 'tại', 'liên kết', 'εδώ', 'κάντε', 'κλικ', 'σύνδεσμο',
);

export interface Words {
  test(text: string): boolean;
  /** `text` with every occurrence taken out. */
  remove(text: string): string;
}

/** Words as one expression over folded text; those of alphabetic scripts start a word unless `~`. */
function words(...alternatives: string[]): Words {
  const alphabetic = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u;
  const source = alternatives
    .map((a) => a.replace(GREEK_ACCENTED, (c) => GREEK_PLAIN[c]!))
    .map((a) => (a.startsWith('~') ? a.slice(1) : alphabetic.test(a) ? `(?<![\\p{L}\\p{M}])(?:${a})` : `(?:${a})`))
    .join('|');
  const once = new RegExp(source, 'u');
  const all = new RegExp(source, 'gu');
  return { test: (text) => once.test(text), remove: (text) => text.replace(all, ' ') };
}
