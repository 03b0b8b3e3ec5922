// 80% of the account's allowance used in the current window (once per window; off on /account).
import { quotaMessage } from './quota-message.js';

export const quotaWarning = quotaMessage(false);
