/**
 * Mailbox providers anyone can sign up to. An address there names a person but no company, so
 * enrichment makes its person without an account instead of making an "account" of, say, gmail.com
 * that would link every private visitor together.
 *
 * Exact domains, and families that exist under many country domains (yahoo.co.uk, gmx.de…) as a
 * label that must be followed by a public suffix of one or two labels.
 */
const EXACT = new Set([
  // Google, Microsoft, Apple
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'passport.com',
  'icloud.com',
  'me.com',
  'mac.com',
  // Privacy-focused
  'proton.me',
  'protonmail.com',
  'protonmail.ch',
  'pm.me',
  'tutanota.com',
  'tutanota.de',
  'tuta.io',
  'tuta.com',
  'keemail.me',
  'mailfence.com',
  'posteo.de',
  'posteo.net',
  'disroot.org',
  'riseup.net',
  'startmail.com',
  'hushmail.com',
  'ctemplar.com',
  'skiff.com',
  'duck.com',
  // Long-standing webmail
  'aol.com',
  'aim.com',
  'ymail.com',
  'rocketmail.com',
  'zoho.com',
  'zohomail.com',
  'mail.com',
  'email.com',
  'usa.com',
  'inbox.com',
  'fastmail.com',
  'fastmail.fm',
  'hey.com',
  'lycos.com',
  'excite.com',
  'rediffmail.com',
  'juno.com',
  'netzero.net',
  'earthlink.net',
  'att.net',
  'sbcglobal.net',
  'bellsouth.net',
  'comcast.net',
  'verizon.net',
  'cox.net',
  'charter.net',
  'optonline.net',
  'btinternet.com',
  'sky.com',
  'virginmedia.com',
  'ntlworld.com',
  'talktalk.net',
  'bigpond.com',
  'shaw.ca',
  'rogers.com',
  'sympatico.ca',
  // Europe
  'web.de',
  't-online.de',
  'freenet.de',
  'arcor.de',
  'mailbox.org',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'sfr.fr',
  'laposte.net',
  'libero.it',
  'virgilio.it',
  'tiscali.it',
  'alice.it',
  'tin.it',
  'seznam.cz',
  'centrum.cz',
  'atlas.cz',
  'wp.pl',
  'o2.pl',
  'onet.pl',
  'interia.pl',
  'op.pl',
  'abv.bg',
  'freemail.hu',
  'citromail.hu',
  'ziggo.nl',
  'planet.nl',
  'home.nl',
  'telenet.be',
  'skynet.be',
  'bluewin.ch',
  'sapo.pt',
  'terra.com.br',
  'bol.com.br',
  'uol.com.br',
  'ig.com.br',
  // Russia and neighbours
  'mail.ru',
  'inbox.ru',
  'list.ru',
  'bk.ru',
  'internet.ru',
  'rambler.ru',
  'ya.ru',
  'ukr.net',
  'i.ua',
  'meta.ua',
  'tut.by',
  // Asia
  'qq.com',
  'foxmail.com',
  '163.com',
  '126.com',
  'yeah.net',
  'sina.com',
  'sina.cn',
  'sohu.com',
  'aliyun.com',
  '139.com',
  'naver.com',
  'hanmail.net',
  'daum.net',
  'nate.com',
  'yahoo.co.jp',
  'docomo.ne.jp',
  'ezweb.ne.jp',
  'softbank.ne.jp',
  // Throwaway addresses
  'mailinator.com',
  'guerrillamail.com',
  'sharklasers.com',
  '10minutemail.com',
  'temp-mail.org',
  'yopmail.com',
  'trashmail.com',
  'getnada.com',
  'dispostable.com',
  'maildrop.cc',
]);

/** Brands that hand out addresses under country domains: yahoo.fr, hotmail.co.uk, gmx.at, yandex.kz… */
const FAMILIES = new Set([
  'yahoo',
  'hotmail',
  'outlook',
  'live',
  'windowslive',
  'gmx',
  'yandex',
  'aol',
  'protonmail',
  'zoho',
  'rediffmail',
]);

/** Public suffixes the families are found under: one label (fr) or two (co.uk, com.au). */
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'ne', 'or', 'gen']);

function isFamilyDomain(labels: string[]): boolean {
  const [brand, first, second, ...rest] = labels;
  if (brand === undefined || !FAMILIES.has(brand) || first === undefined || rest.length > 0) return false;
  if (second === undefined) return first.length === 2 || first === 'com' || first === 'net';
  return SECOND_LEVEL.has(first) && second.length === 2;
}

/** Whether a canonical domain (lowercase, no leading www.) belongs to a free mailbox provider. */
export function isFreeMailDomain(domain: string): boolean {
  if (EXACT.has(domain)) return true;
  return isFamilyDomain(domain.split('.'));
}
