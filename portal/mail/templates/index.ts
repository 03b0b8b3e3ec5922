// Every kind of message the portal sends, each from its own template (one file per kind).
import type { Template } from './message.js';
import { verifyEmail, type VerifyEmailData } from './verify-email.js';
import { passwordReset, type PasswordResetData } from './password-reset.js';
import { emailChangeConfirm, type EmailChangeConfirmData } from './email-change-confirm.js';
import { emailChangeNotice, type EmailChangeNoticeData } from './email-change-notice.js';
import { keyCreated, type KeyCreatedData } from './key-created.js';
import type { QuotaData } from './quota-message.js';
import { quotaWarning } from './quota-warning.js';
import { quotaExhausted } from './quota-exhausted.js';
import { signupExisting, type SignupExistingData } from './signup-existing.js';
import { upgradeDecided, type UpgradeDecidedData } from './upgrade-decided.js';
import { upgradeRequested, type UpgradeRequestedData } from './upgrade-requested.js';
import { upstreamAlert, type UpstreamAlertData } from './upstream-alert.js';
import { paymentFailed, type PaymentFailedData } from './payment-failed.js';
import { factorAdded, type FactorAddedData } from './factor-added.js';
import { factorRemoved, type FactorRemovedData } from './factor-removed.js';

export interface MailData {
  'verify-email': VerifyEmailData;
  'password-reset': PasswordResetData;
  'email-change-confirm': EmailChangeConfirmData;
  'email-change-notice': EmailChangeNoticeData;
  'key-created': KeyCreatedData;
  'quota-warning': QuotaData;
  'quota-exhausted': QuotaData;
  'signup-existing': SignupExistingData;
  'upgrade-decided': UpgradeDecidedData;
  'upgrade-requested': UpgradeRequestedData;
  'upstream-alert': UpstreamAlertData;
  'payment-failed': PaymentFailedData;
  'factor-added': FactorAddedData;
  'factor-removed': FactorRemovedData;
}

export type MailKind = keyof MailData;

export const TEMPLATES: { [K in MailKind]: Template<MailData[K]> } = {
  'verify-email': verifyEmail,
  'password-reset': passwordReset,
  'email-change-confirm': emailChangeConfirm,
  'email-change-notice': emailChangeNotice,
  'key-created': keyCreated,
  'quota-warning': quotaWarning,
  'quota-exhausted': quotaExhausted,
  'signup-existing': signupExisting,
  'upgrade-decided': upgradeDecided,
  'upgrade-requested': upgradeRequested,
  'upstream-alert': upstreamAlert,
  'payment-failed': paymentFailed,
  'factor-added': factorAdded,
  'factor-removed': factorRemoved,
};
