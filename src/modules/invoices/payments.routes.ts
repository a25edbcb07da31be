// Payment endpoints: list, create, get, update (notes and metadata) and refund; no delete.
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  ApplyBody,
  type ApplyInput,
  UnapplyBody,
  type UnapplyInput,
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentSchema,
  RefundPaymentBody,
  UpdatePaymentBody,
  type RefundPaymentInput,
} from './payments.schemas.js';
import * as service from './payments.service.js';

export const paymentRoutes = resourceRoutes({
  path: '/v1/payments',
  names: ['payment', 'payments'],
  scopes: { read: 'payments:read', write: 'payments:write' },
  schemas: { item: PaymentSchema, create: CreatePaymentBody, update: UpdatePaymentBody, list: ListPaymentsQuery },
  stateErrors: ['INVALID_STATE', 'CONFLICT'],
  service: {
    list: service.listPayments,
    present: service.presentPayment,
    create: service.createPayment,
    get: service.getPayment,
    update: service.updatePayment,
  },
  actions: [
    {
      name: 'refund',
      operationId: 'refundPayment',
      scope: 'payments:write',
      summary: 'Refund a payment',
      description:
        "Records a refund of part (`amount`) or all of what is left of the payment. The invoice's amount_paid drops by it; a paid invoice with money due again returns to `sent`.",
      body: RefundPaymentBody,
      errors: [],
      run: (ctx, id, body) => service.refundPayment(ctx, id, body as RefundPaymentInput),
    },
    {
      name: 'apply',
      operationId: 'applyPayment',
      scope: 'payments:write',
      summary: 'Apply a payment’s unapplied money to invoices',
      description:
        'Applies the payment’s unapplied money (the client’s credit) to 1–50 sent invoices of the same client and currency, all or nothing. An invoice at 0 becomes `paid`.',
      body: ApplyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => service.applyPayment(ctx, id, body as ApplyInput),
    },
    {
      name: 'unapply',
      operationId: 'unapplyPayment',
      scope: 'payments:write',
      summary: 'Reverse one application of a payment',
      description:
        'Takes the money of one application back off its invoice (a `paid` invoice returns to `sent`); it becomes the client’s credit again. An application already released is 409.',
      body: UnapplyBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => service.unapplyPayment(ctx, id, body as UnapplyInput),
    },
  ],
});
