// The kind of a link, from its anchor text, its URL's words, and the sentence around it when it says nothing of
// itself, in the fifteen languages the classifier knows. These are the examples it was written against; the
// held-out measure is links-labelled.test.ts.
import { describe, expect, it } from 'vitest';
import { extractLinks, type LinkKind } from '../../../src/mail/extract/index.ts';

const TOKEN = 'k7Qx2mP9aZ4wR8tY1vB3';
/** The kind of one anchor, alone in an HTML body. */
const anchorKind = (text: string, url = `https://app.example/l/${TOKEN}`) =>
  extractLinks({ html: `<p><a href="${url}">${text}</a></p>`, plainText: null, headers: {} })[0]!.kind;

const BY_TEXT: [LinkKind, string[]][] = [
  [
    'verify',
    [
      'Verify your email address',
      'Confirm my email',
      'Activate account',
      'Confirm',
      'E-Mail-Adresse bestätigen',
      'Konto aktivieren',
      'Confirmer mon adresse e-mail',
      'Vérifier mon adresse',
      'Confirmar correo electrónico',
      'Verificar mi cuenta',
      'Confirmar e-mail',
      'Ativar conta',
      'Conferma il tuo indirizzo email',
      'Verifica email',
      'Bevestig je e-mailadres',
      'Potwierdź adres e-mail',
      'Подтвердить email',
      'E-posta adresimi doğrula',
      'メールアドレスを確認する',
      '本登録を完了する',
      '验证邮箱',
      '確認電子郵件',
      '이메일 인증',
      '이메일 주소 확인',
      'تأكيد البريد الإلكتروني',
      'تفعيل الحساب',
      'אימות כתובת האימייל',
      'אישור ההרשמה',
      'Confirm your subscription',
      'ईमेल पता सत्यापित करें',
      'Xác minh email',
      'Επιβεβαίωση email',
    ],
  ],
  [
    'magic_link',
    [
      'Sign in to Acme',
      'Log in',
      'Sign in with magic link',
      'Jetzt einloggen',
      'Anmelden',
      'Se connecter',
      'Iniciar sesión',
      'Fazer login',
      'Accedi',
      'Inloggen',
      'Zaloguj się',
      'Войти',
      'Giriş yap',
      'ログイン',
      '登录',
      '로그인',
      'تسجيل الدخول',
      'התחברות',
      'Confirm sign-in',
      'लॉग इन करें',
      'Đăng nhập',
      'Σύνδεση',
    ],
  ],
  [
    'reset',
    [
      'Reset password',
      'Choose a new password',
      'Passwort zurücksetzen',
      'Réinitialiser le mot de passe',
      'Restablecer contraseña',
      'Redefinir senha',
      'Reimposta la password',
      'Wachtwoord opnieuw instellen',
      'Zresetuj hasło',
      'Сбросить пароль',
      'Şifremi sıfırla',
      'パスワードを再設定',
      '重置密码',
      '비밀번호 재설정',
      'إعادة تعيين كلمة المرور',
      'איפוס סיסמה',
      'पासवर्ड रीसेट करें',
      'Đặt lại mật khẩu',
      'Επαναφορά κωδικού πρόσβασης',
      'Forgot password?',
    ],
  ],
  [
    'unsubscribe',
    [
      'Unsubscribe',
      'Opt out of these emails',
      'Newsletter abbestellen',
      'Abmelden',
      'Se désabonner',
      'Darse de baja',
      'Cancelar inscrição',
      'Disiscriviti',
      'Afmelden',
      'Wypisz się',
      'Отписаться',
      'Abonelikten çık',
      '配信停止',
      '退订',
      '수신거부',
      'إلغاء الاشتراك',
      'להסרה מרשימת התפוצה',
      'सदस्यता समाप्त करें',
      'Hủy đăng ký',
      'Απεγγραφή',
      // choosing which mail to receive counts as leaving a list
      'Manage email preferences',
      'Update your preferences',
      'E-Mail-Einstellungen ändern',
      'Gérer mes préférences',
      'メール配信設定',
    ],
  ],
  [
    'invite',
    [
      'Accept invitation',
      'Join the team',
      'Einladung annehmen',
      "Accepter l'invitation",
      'Aceptar invitación',
      'Aceitar convite',
      "Accetta l'invito",
      'Uitnodiging accepteren',
      'Zaakceptuj zaproszenie',
      'Принять приглашение',
      'Daveti kabul et',
      '招待を承認',
      '接受邀请',
      '초대 수락',
      'قبول الدعوة',
      'הצטרפו לצוות',
      'आमंत्रण स्वीकार करें',
      'Chấp nhận lời mời',
      'Αποδοχή πρόσκλησης',
      // an event's RSVP
      'RSVP',
      'Accept',
      'Confirm attendance',
    ],
  ],
  [
    'other',
    [
      'View your order',
      'Confirm your order',
      'Bestellung bestätigen',
      'Privacy policy',
      'Help center',
      'Track your package',
      'Ver pedido',
      '注文内容を確認',
      '詳細を確認',
      '주문 확인',
      'Download the app',
      'Read more',
      'Join the webinar',
    ],
  ],
];

describe('the kind of an anchor, from its text', () => {
  for (const [kind, texts] of BY_TEXT) {
    it.each(texts)(`${kind}: %s`, (text) => expect(anchorKind(text)).toBe(kind));
  }

  it('a sign-in link without a token in its URL is the sign-in page, not a magic link', () => {
    expect(anchorKind('Log in', 'https://app.example/login')).toBe('other');
  });

  it('"sign in with your password" is neither a reset nor a magic link; "forgot your password" is a reset', () => {
    expect(anchorKind('Sign in with your password')).toBe('other');
    expect(anchorKind('Forgot your password?', 'https://app.example/help')).toBe('reset');
  });
});

describe('the kind of a link that says nothing of itself', () => {
  it('reads the path and query of its URL, a tracking wrapper’s target included', () => {
    expect(anchorKind('Click here', 'https://app.example/account/verify-email?token=abc')).toBe('verify');
    expect(anchorKind('Continue', `https://app.example/auth/magic?t=${TOKEN}`)).toBe('magic_link');
    expect(anchorKind('Go', 'https://t.example/r?u=https%3A%2F%2Fapp.example%2Freset-password%3Ft%3D1')).toBe('reset');
    expect(anchorKind('', 'https://app.example/invitations/accept/123')).toBe('invite');
    expect(anchorKind('here', 'https://lists.example/unsubscribe?u=1')).toBe('unsubscribe');
    expect(anchorKind('Acme', 'https://acme.example/')).toBe('other');
  });

  it('reads the sentence around a generic anchor (before it on its line, or the line above; after it on its line)', () => {
    const html = (body: string) => extractLinks({ html: body, plainText: null, headers: {} }).map((l) => l.kind);
    expect(html(`<p>To reset your password, <a href="https://t.example/c/${TOKEN}">click here</a>.</p>`)).toEqual(['reset']);
    expect(html(`<p><a href="https://t.example/c/${TOKEN}">Click here</a> to verify your email address.</p>`)).toEqual(['verify']);
    expect(
      html(`<p>We received a request to reset your password.</p><p><a href="https://t.example/c/${TOKEN}">Hier klicken</a></p>`),
    ).toEqual(['reset']);
    // Another sentence on the same line is not this link's.
    expect(
      html(
        `<p>Reset your password: <a href="https://t.example/a/${TOKEN}">here</a>. Questions? <a href="https://t.example/help">Click here</a></p>`,
      ),
    ).toEqual(['reset', 'other']);
  });

  it('reads the sentence around a URL of the text part', () => {
    const text = [
      'Bitte bestätige deine E-Mail-Adresse:',
      `https://t.example/c/${TOKEN}`,
      '',
      'Wenn du das nicht warst, ignoriere diese E-Mail. Hilfe: https://t.example/help',
      'こちら (https://t.example/s?mid=abc)から配信停止できます。',
      `请点击以下链接登录：https://t.example/m/${TOKEN}`,
    ].join('\n');
    expect(extractLinks({ html: null, plainText: text, headers: {} }).map((l) => [l.kind, l.text])).toEqual([
      ['verify', null],
      ['other', null],
      ['unsubscribe', null],
      ['magic_link', null],
    ]);
  });
});
