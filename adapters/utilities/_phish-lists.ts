// The word lists behind phish-check's heuristics. Short by design: each entry is a commonly phished brand,
// a TLD or shortener seen disproportionately in phishing feeds. Brands list the registrable domains they
// own, so `paypal.com` is not flagged for saying "paypal" and `paypal.com.secure-login.xyz` is.

export interface Brand {
  /** What phishing hosts spell out; matched at the start of a word of the host. */
  keyword: string;
  /** Registrable domains (tldts getDomain) the brand really uses. */
  domains: string[];
}

const b = (keyword: string, ...domains: string[]): Brand => ({ keyword, domains });

export const BRANDS: Brand[] = [
  b('paypal', 'paypal.com', 'paypal.me', 'paypalobjects.com'),
  b('apple', 'apple.com', 'icloud.com', 'apple.co'),
  b('icloud', 'icloud.com', 'apple.com'),
  b('microsoft', 'microsoft.com', 'microsoftonline.com', 'live.com', 'office.com', 'azure.com', 'windows.net'),
  b('office365', 'office.com', 'office365.com', 'microsoft.com'),
  b('outlook', 'outlook.com', 'live.com', 'office.com', 'microsoft.com'),
  b('google', 'google.com', 'google.co.uk', 'google.de', 'google.fr', 'googleusercontent.com', 'googleapis.com', 'youtube.com'),
  b('gmail', 'gmail.com', 'google.com'),
  b(
    'amazon',
    'amazon.com',
    'amazon.co.uk',
    'amazon.de',
    'amazon.fr',
    'amazon.it',
    'amazon.es',
    'amazon.ca',
    'amazon.co.jp',
    'amazon.in',
    'amazonaws.com',
    'amazon.com.br',
  ),
  b('netflix', 'netflix.com'),
  b('facebook', 'facebook.com', 'fb.com', 'meta.com', 'facebook.net'),
  b('instagram', 'instagram.com'),
  b('whatsapp', 'whatsapp.com', 'whatsapp.net'),
  b('linkedin', 'linkedin.com', 'lnkd.in'),
  b('twitter', 'twitter.com', 'x.com'),
  b('dropbox', 'dropbox.com', 'dropboxusercontent.com'),
  b('docusign', 'docusign.com', 'docusign.net'),
  b('adobe', 'adobe.com'),
  b('chase', 'chase.com'),
  b('wellsfargo', 'wellsfargo.com'),
  b('bankofamerica', 'bankofamerica.com'),
  b('citibank', 'citibank.com', 'citi.com'),
  b('hsbc', 'hsbc.com', 'hsbc.co.uk'),
  b('barclays', 'barclays.co.uk', 'barclays.com'),
  b('santander', 'santander.com', 'santander.co.uk'),
  b('dhl', 'dhl.com', 'dhl.de'),
  b('fedex', 'fedex.com'),
  b('usps', 'usps.com'),
  b('coinbase', 'coinbase.com'),
  b('binance', 'binance.com'),
  b('metamask', 'metamask.io'),
  b('ebay', 'ebay.com', 'ebay.co.uk', 'ebay.de'),
  b('yahoo', 'yahoo.com'),
  b('steamcommunity', 'steamcommunity.com'),
  b('spotify', 'spotify.com'),
];

/** TLDs over-represented in phishing reports (cheap or free registrations, lax abuse handling). */
export const SUSPICIOUS_TLDS = new Set([
  'zip',
  'mov',
  'xyz',
  'top',
  'tk',
  'ml',
  'ga',
  'cf',
  'gq',
  'click',
  'link',
  'country',
  'kim',
  'work',
  'loan',
  'men',
  'buzz',
  'rest',
  'fit',
  'cam',
  'icu',
  'sbs',
  'cfd',
  'lol',
  'monster',
  'quest',
  'cyou',
  'bond',
  'support',
]);

/** URL shorteners: the real destination is hidden from the reader (and from us: we never fetch). */
export const SHORTENERS = new Set([
  'bit.ly',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'rb.gy',
  't.ly',
  'tiny.cc',
  'bit.do',
  's.id',
  'v.gd',
  'shorte.st',
  'adf.ly',
  'qrco.de',
  'urlz.fr',
  'y2u.be',
]);

/** Path words of credential pages: worth a warning when the page is served without TLS. */
export const LOGIN_PATH = /log-?in|log-?on|sign-?in|verif|account|passw(or)?d|webscr|credential|auth/i;
