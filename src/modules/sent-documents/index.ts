// The face of the sent-documents module: what other modules, the workers and the composition may use. The rest is private.
export { cancelStaleReminder, DeliverySchema, renderDeliveryPdf, trackDelivery } from './deliveries.js';
export { sendDocument } from './sending.js';
export { fromAnotherSite } from './csrf.js';
export {
  documentFile,
  type DocumentFile,
  documentPrint,
  type DocumentPrint,
  printEtag,
  renderPrint,
} from './document-files.js';
