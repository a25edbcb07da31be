// The model as a UN/CEFACT Cross Industry Invoice D16B (TypeCode 380, or 381 for a credit note), EN 16931's
// CII syntax binding, the file Factur-X embeds. Elements follow the D16B schema's order.
import type { EinvoiceAddress, EinvoiceModel, EinvoiceParty } from './einvoice-model.js';
import { elementMaker, type Node, serialize, xmlDocument } from './einvoice-xml.js';

const NAMESPACES = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
};
const element = elementMaker(NAMESPACES);

/** A date as CII writes it: format 102, YYYYMMDD. */
function date(parent: Node, name: string, value: string, type: 'udt' | 'qdt' = 'udt'): void {
  element(element(parent, name), `${type}:DateTimeString`, value.replaceAll('-', ''), { format: '102' });
}

function postalAddress(parent: Node, address: EinvoiceAddress | null): void {
  const node = element(parent, 'ram:PostalTradeAddress');
  element(node, 'ram:PostcodeCode', address?.postal_code);
  element(node, 'ram:LineOne', address?.line1);
  element(node, 'ram:LineTwo', address?.line2);
  element(node, 'ram:CityName', address?.city);
  element(node, 'ram:CountryID', address?.country);
  element(node, 'ram:CountrySubDivisionName', address?.region);
}

function party(parent: Node, name: string, data: EinvoiceParty): void {
  const node = element(parent, name);
  element(node, 'ram:Name', data.name);
  if (data.registration || data.trading_name) {
    const legal = element(node, 'ram:SpecifiedLegalOrganization');
    if (data.registration)
      element(
        legal,
        'ram:ID',
        data.registration.id,
        data.registration.scheme ? { schemeID: data.registration.scheme } : undefined,
      );
    element(legal, 'ram:TradingBusinessName', data.trading_name);
  }
  if (data.phone || data.email) {
    const contact = element(node, 'ram:DefinedTradeContact');
    if (data.phone) element(element(contact, 'ram:TelephoneUniversalCommunication'), 'ram:CompleteNumber', data.phone);
    if (data.email) element(element(contact, 'ram:EmailURIUniversalCommunication'), 'ram:URIID', data.email);
  }
  postalAddress(node, data.address);
  if (data.electronic_address)
    element(element(node, 'ram:URIUniversalCommunication'), 'ram:URIID', data.electronic_address.value, {
      schemeID: data.electronic_address.scheme,
    });
  if (data.vat_id) element(element(node, 'ram:SpecifiedTaxRegistration'), 'ram:ID', data.vat_id, { schemeID: 'VA' });
  if (data.tax_id && data.tax_id !== data.vat_id)
    element(element(node, 'ram:SpecifiedTaxRegistration'), 'ram:ID', data.tax_id, { schemeID: 'FC' });
}

export function writeCii(model: EinvoiceModel): Buffer {
  const root = xmlDocument(NAMESPACES.rsm, 'rsm:CrossIndustryInvoice', NAMESPACES);
  const context = element(root, 'rsm:ExchangedDocumentContext');
  element(element(context, 'ram:GuidelineSpecifiedDocumentContextParameter'), 'ram:ID', 'urn:cen.eu:en16931:2017');
  const header = element(root, 'rsm:ExchangedDocument');
  element(header, 'ram:ID', model.number);
  element(header, 'ram:TypeCode', model.kind === 'credit_note' ? '381' : '380');
  date(header, 'ram:IssueDateTime', model.issue_date);
  if (model.notes) element(element(header, 'ram:IncludedNote'), 'ram:Content', model.notes);

  const transaction = element(root, 'rsm:SupplyChainTradeTransaction');
  for (const line of model.lines) {
    const item = element(transaction, 'ram:IncludedSupplyChainTradeLineItem');
    element(element(item, 'ram:AssociatedDocumentLineDocument'), 'ram:LineID', line.id);
    element(element(item, 'ram:SpecifiedTradeProduct'), 'ram:Name', line.name);
    const agreement = element(item, 'ram:SpecifiedLineTradeAgreement');
    element(element(agreement, 'ram:NetPriceProductTradePrice'), 'ram:ChargeAmount', line.price);
    element(element(item, 'ram:SpecifiedLineTradeDelivery'), 'ram:BilledQuantity', line.quantity, {
      unitCode: line.unit_code,
    });
    const settlement = element(item, 'ram:SpecifiedLineTradeSettlement');
    const tax = element(settlement, 'ram:ApplicableTradeTax');
    element(tax, 'ram:TypeCode', 'VAT');
    element(tax, 'ram:CategoryCode', line.category);
    element(tax, 'ram:RateApplicablePercent', line.percent);
    if (line.allowance !== null) {
      const allowance = element(settlement, 'ram:SpecifiedTradeAllowanceCharge');
      element(element(allowance, 'ram:ChargeIndicator'), 'udt:Indicator', 'false');
      element(allowance, 'ram:ActualAmount', line.allowance);
      element(allowance, 'ram:ReasonCode', '95');
    }
    element(
      element(settlement, 'ram:SpecifiedTradeSettlementLineMonetarySummation'),
      'ram:LineTotalAmount',
      line.net_amount,
    );
  }

  const agreement = element(transaction, 'ram:ApplicableHeaderTradeAgreement');
  element(agreement, 'ram:BuyerReference', model.buyer_reference);
  party(agreement, 'ram:SellerTradeParty', model.seller);
  party(agreement, 'ram:BuyerTradeParty', model.buyer);
  if (model.purchase_order)
    element(element(agreement, 'ram:BuyerOrderReferencedDocument'), 'ram:IssuerAssignedID', model.purchase_order);

  const delivery = element(transaction, 'ram:ApplicableHeaderTradeDelivery');
  if (model.deliver_to) postalAddress(element(delivery, 'ram:ShipToTradeParty'), model.deliver_to);
  if (model.delivery_date)
    date(element(delivery, 'ram:ActualDeliverySupplyChainEvent'), 'ram:OccurrenceDateTime', model.delivery_date);

  const settlement = element(transaction, 'ram:ApplicableHeaderTradeSettlement');
  element(settlement, 'ram:InvoiceCurrencyCode', model.currency);
  if (model.payment_account) {
    const means = element(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans');
    element(means, 'ram:TypeCode', model.currency === 'EUR' ? '58' : '30');
    const account = element(means, 'ram:PayeePartyCreditorFinancialAccount');
    element(account, 'ram:IBANID', model.payment_account.iban);
    element(account, 'ram:AccountName', model.payment_account.name);
    if (model.payment_account.bic)
      element(element(means, 'ram:PayeeSpecifiedCreditorFinancialInstitution'), 'ram:BICID', model.payment_account.bic);
  }
  for (const row of model.breakdown) {
    const tax = element(settlement, 'ram:ApplicableTradeTax');
    element(tax, 'ram:CalculatedAmount', row.tax);
    element(tax, 'ram:TypeCode', 'VAT');
    element(tax, 'ram:ExemptionReason', row.exemption_reason);
    element(tax, 'ram:BasisAmount', row.taxable);
    element(tax, 'ram:CategoryCode', row.category);
    element(tax, 'ram:ExemptionReasonCode', row.exemption_reason_code);
    element(tax, 'ram:RateApplicablePercent', row.percent);
  }
  if (model.service_period) {
    const period = element(settlement, 'ram:BillingSpecifiedPeriod');
    date(period, 'ram:StartDateTime', model.service_period.start_date);
    date(period, 'ram:EndDateTime', model.service_period.end_date);
  }
  if (model.payment_terms || model.due_date) {
    const terms = element(settlement, 'ram:SpecifiedTradePaymentTerms');
    element(terms, 'ram:Description', model.payment_terms);
    if (model.due_date) date(terms, 'ram:DueDateDateTime', model.due_date);
  }
  const totals = element(settlement, 'ram:SpecifiedTradeSettlementHeaderMonetarySummation');
  element(totals, 'ram:LineTotalAmount', model.totals.line_total);
  element(totals, 'ram:TaxBasisTotalAmount', model.totals.tax_exclusive);
  element(totals, 'ram:TaxTotalAmount', model.totals.tax, { currencyID: model.currency });
  element(totals, 'ram:GrandTotalAmount', model.totals.tax_inclusive);
  if (model.totals.prepaid !== null) element(totals, 'ram:TotalPrepaidAmount', model.totals.prepaid);
  element(totals, 'ram:DuePayableAmount', model.totals.payable);
  if (model.preceding) {
    const reference = element(settlement, 'ram:InvoiceReferencedDocument');
    element(reference, 'ram:IssuerAssignedID', model.preceding.number);
    if (model.preceding.issue_date) date(reference, 'ram:FormattedIssueDateTime', model.preceding.issue_date, 'qdt');
  }
  return serialize(root);
}
