// The body of POST /v1/invoices/:id/send and /v1/quotes/:id/send (optional).
import { Type, type Static } from '@sinclair/typebox';

export const SendBody = Type.Union(
  [
    Type.Object(
      { message: Type.Optional(Type.String({ maxLength: 2000, description: 'A personal note put at the top of the e-mail.', example: 'Thanks for choosing us! Payment details are on the invoice.' })) },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Optional. The e-mail goes only to the client’s stored address.' },
);

export type SendInput = Static<typeof SendBody> | undefined;
