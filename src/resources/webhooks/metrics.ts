import type { DatabaseGauge } from '../../http/metrics.ts';
import { countDeliveriesByState } from './store.ts';

const STATES = ['pending', 'retrying', 'succeeded', 'failed'] as const;

/**
 * Delivery outcomes counted from the delivery log rather than by the process that sent: workers of
 * any node or `tailor worker` process make deliveries, and only the database sees them all. A
 * pending delivery that has failed an attempt is `retrying`: its receiver is in trouble now.
 */
export const webhookDeliveries: DatabaseGauge<'state'> = {
  name: 'tailor_webhook_deliveries',
  help: 'Webhook deliveries in the delivery log (kept 30 days), by state: pending, retrying, succeeded, failed',
  labelNames: ['state'],
  async read(database) {
    const count = { pending: 0, retrying: 0, succeeded: 0, failed: 0 };
    for (const row of await countDeliveriesByState(database.acrossTenants())) {
      if (row.state === 'pending') {
        count.retrying = row.tried;
        count.pending = row.deliveries - row.tried;
      } else {
        count[row.state] = row.deliveries;
      }
    }
    return STATES.map((state) => ({ labels: { state }, value: count[state] }));
  },
};
