// The model as a UBL 2.1 Invoice (380) or CreditNote (381), EN 16931's UBL syntax binding. Elements follow the
// UBL schema's order; optional groups are left out when empty.
import type { EinvoiceAddress, EinvoiceModel, EinvoiceParty } from './einvoice-model.js';
import { elementMaker, type Node, serialize, xmlDocument } from './einvoice-xml.js';

const NAMESPACES = {
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};
const INVOICE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const CREDIT_NOTE = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
const element = elementMaker(NAMESPACES);

function postalAddress(parent: Node, name: string, address: EinvoiceAddress | null): void {
  const node = element(parent, name);
  element(node, 'cbc:StreetName', address?.line1);
  element(node, 'cbc:AdditionalStreetName', address?.line2);
  element(node, 'cbc:CityName', address?.city);
  element(node, 'cbc:PostalZone', address?.postal_code);
  element(node, 'cbc:CountrySubentity', address?.region);
  element(element(node, 'cac:Country'), 'cbc:IdentificationCode', address?.country);
}

function party(parent: Node, name: string, data: EinvoiceParty): void {
  const node = element(element(parent, name), 'cac:Party');
  if (data.electronic_address)
    element(node, 'cbc:EndpointID', data.electronic_address.value, { schemeID: data.electronic_address.scheme });
  if (data.trading_name) element(element(node, 'cac:PartyName'), 'cbc:Name', data.trading_name);
  postalAddress(node, 'cac:PostalAddress', data.address);
  if (data.vat_id) {
    const scheme = element(node, 'cac:PartyTaxScheme');
    element(scheme, 'cbc:CompanyID', data.vat_id);
    element(element(scheme, 'cac:TaxScheme'), 'cbc:ID', 'VAT');
  }
  if (data.tax_id && data.tax_id !== data.vat_id) {
    const scheme = element(node, 'cac:PartyTaxScheme');
    element(scheme, 'cbc:CompanyID', data.tax_id);
    element(element(scheme, 'cac:TaxScheme'), 'cbc:ID', 'FC');
  }
  const legal = element(node, 'cac:PartyLegalEntity');
  element(legal, 'cbc:RegistrationName', data.name);
  if (data.registration)
    element(
      legal,
      'cbc:CompanyID',
      data.registration.id,
      data.registration.scheme ? { schemeID: data.registration.scheme } : undefined,
    );
  if (data.phone || data.email) {
    const contact = element(node, 'cac:Contact');
    element(contact, 'cbc:Telephone', data.phone);
    element(contact, 'cbc:ElectronicMail', data.email);
  }
}

function taxCategory(
  parent: Node,
  name: string,
  category: string,
  percent: string | null,
  exemption?: {
    reason: string | null;
    code: string | null;
  },
): void {
  const node = element(parent, name);
  element(node, 'cbc:ID', category);
  element(node, 'cbc:Percent', percent);
  if (exemption) {
    element(node, 'cbc:TaxExemptionReasonCode', exemption.code);
    element(node, 'cbc:TaxExemptionReason', exemption.reason);
  }
  element(element(node, 'cac:TaxScheme'), 'cbc:ID', 'VAT');
}

export function writeUbl(model: EinvoiceModel): Buffer {
  const credit = model.kind === 'credit_note';
  const root = xmlDocument(credit ? CREDIT_NOTE : INVOICE, credit ? 'CreditNote' : 'Invoice', NAMESPACES);
  const money = { currencyID: model.currency };
  element(root, 'cbc:CustomizationID', 'urn:cen.eu:en16931:2017');
  element(root, 'cbc:ID', model.number);
  element(root, 'cbc:IssueDate', model.issue_date);
  if (!credit) element(root, 'cbc:DueDate', model.due_date);
  element(root, credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', credit ? '381' : '380');
  element(root, 'cbc:Note', model.notes);
  element(root, 'cbc:DocumentCurrencyCode', model.currency);
  element(root, 'cbc:BuyerReference', model.buyer_reference);
  if (model.service_period) {
    const period = element(root, 'cac:InvoicePeriod');
    element(period, 'cbc:StartDate', model.service_period.start_date);
    element(period, 'cbc:EndDate', model.service_period.end_date);
  }
  if (model.purchase_order) element(element(root, 'cac:OrderReference'), 'cbc:ID', model.purchase_order);
  if (model.preceding) {
    const reference = element(element(root, 'cac:BillingReference'), 'cac:InvoiceDocumentReference');
    element(reference, 'cbc:ID', model.preceding.number);
    element(reference, 'cbc:IssueDate', model.preceding.issue_date);
  }
  party(root, 'cac:AccountingSupplierParty', model.seller);
  party(root, 'cac:AccountingCustomerParty', model.buyer);
  if (model.delivery_date || model.deliver_to) {
    const delivery = element(root, 'cac:Delivery');
    element(delivery, 'cbc:ActualDeliveryDate', model.delivery_date);
    if (model.deliver_to) postalAddress(element(delivery, 'cac:DeliveryLocation'), 'cac:Address', model.deliver_to);
  }
  if (model.payment_account) {
    const means = element(root, 'cac:PaymentMeans');
    element(means, 'cbc:PaymentMeansCode', model.currency === 'EUR' ? '58' : '30');
    const account = element(means, 'cac:PayeeFinancialAccount');
    element(account, 'cbc:ID', model.payment_account.iban);
    element(account, 'cbc:Name', model.payment_account.name);
    if (model.payment_account.bic)
      element(element(account, 'cac:FinancialInstitutionBranch'), 'cbc:ID', model.payment_account.bic);
  }
  if (model.payment_terms) element(element(root, 'cac:PaymentTerms'), 'cbc:Note', model.payment_terms);
  const taxTotal = element(root, 'cac:TaxTotal');
  element(taxTotal, 'cbc:TaxAmount', model.totals.tax, money);
  for (const row of model.breakdown) {
    const subtotal = element(taxTotal, 'cac:TaxSubtotal');
    element(subtotal, 'cbc:TaxableAmount', row.taxable, money);
    element(subtotal, 'cbc:TaxAmount', row.tax, money);
    taxCategory(subtotal, 'cac:TaxCategory', row.category, row.percent, {
      reason: row.exemption_reason,
      code: row.exemption_reason_code,
    });
  }
  const totals = element(root, 'cac:LegalMonetaryTotal');
  element(totals, 'cbc:LineExtensionAmount', model.totals.line_total, money);
  element(totals, 'cbc:TaxExclusiveAmount', model.totals.tax_exclusive, money);
  element(totals, 'cbc:TaxInclusiveAmount', model.totals.tax_inclusive, money);
  if (model.totals.prepaid !== null) element(totals, 'cbc:PrepaidAmount', model.totals.prepaid, money);
  element(totals, 'cbc:PayableAmount', model.totals.payable, money);
  for (const line of model.lines) {
    const node = element(root, credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine');
    element(node, 'cbc:ID', line.id);
    element(node, credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', line.quantity, {
      unitCode: line.unit_code,
    });
    element(node, 'cbc:LineExtensionAmount', line.net_amount, money);
    if (line.allowance !== null) {
      const allowance = element(node, 'cac:AllowanceCharge');
      element(allowance, 'cbc:ChargeIndicator', 'false');
      element(allowance, 'cbc:AllowanceChargeReasonCode', '95');
      element(allowance, 'cbc:Amount', line.allowance, money);
    }
    const item = element(node, 'cac:Item');
    element(item, 'cbc:Name', line.name);
    taxCategory(item, 'cac:ClassifiedTaxCategory', line.category, line.percent);
    element(element(node, 'cac:Price'), 'cbc:PriceAmount', line.price, money);
  }
  return serialize(root);
}
