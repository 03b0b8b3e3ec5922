// How many days the request log keeps a plan's calls: the plan's `logDays:` (catalog/plans.yaml,
// PLAN_<ID>_LOG_DAYS), one day for a plan that names none and for calls of no known key.
import type { PlanSpec } from '../../engine/catalog/load.js';

export function retentionDays(plans: Record<string, PlanSpec>, plan: string | undefined): number {
  return (plan !== undefined ? plans[plan]?.logDays : undefined) ?? 1;
}
