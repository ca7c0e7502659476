export {
  DELIVERY_QUEUE,
  createDeliveryQueue,
  enqueueDelivery,
  startDeliveryWorker,
  type DeliveryWorkerOptions,
  type EnqueueDelivery,
  type WebhookService,
} from './engine.ts';
export { deliveryLog, type DeliveryState, type LogRow } from './store.ts';
export { formatDeliveryLog } from './format.ts';
export { signature, standardHeaders } from './signing.ts';
