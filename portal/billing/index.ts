// What the other slices use of billing/: the plan table the account and key pages show, the plan history,
// and the subscription figures and plan-change confirmation of the admin pages.
export { billingFor } from './routes.js';
export { adminStatusCell, adminSubscription, confirmPlanBody, planHistory } from './views.js';
export { isEntitled, type BillingRecord } from './records.js';
