// What the other slices use of two-factor/: the summary of an account's factors (the account and admin
// pages show it) and the mail of a change (an admin's reset sends it).
export { hasFactor, type FactorSummary } from './factors.js';
export { mailFactorChange } from './notices.js';
