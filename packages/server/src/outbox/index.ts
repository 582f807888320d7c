// The outbox's public face: what the app and the CLI may use.
export { DeliveriesStore, type Delivery, type DeliveryStatus, deliveryOf } from './deliveries-store.ts';
export { Outbox, type OutboxTiming } from './outbox.ts';
export { OUTBOX_API } from './outbox-api.ts';
export { outbox } from './outbox-plugin.ts';
