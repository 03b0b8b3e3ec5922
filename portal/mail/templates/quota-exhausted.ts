// All of the account's allowance used: calls answer 429 until the window resets (once per window; off on /account).
import { quotaMessage } from './quota-message.js';

export const quotaExhausted = quotaMessage(true);
