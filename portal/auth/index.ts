// What the other slices use of auth/: the signed-in and admin guards, the end of a sign-in a second factor
// finishes and the check of the current password, the one-time links an email change or an admin's reset
// link is made of, the answers to too many tries or a link that no longer works, and the invites the admin
// pages list and make.
export { requireAdmin, requireSignedIn } from './sessions.js';
export { LINK_TTL_MS, type FoundLink } from './link-tokens.js';
export { mailEmailChange, resetLink } from './mail-links.js';
export { INVITE_DAYS, type Invite } from './invites.js';
export { checkCurrentPassword, completeSignIn, tooMany } from './routes.js';
export { localPath } from './sessions.js';
export type { Attempt } from './throttle.js';
export { linkedAccount, linkRefused, tooManyLinks } from './confirm-routes.js';
