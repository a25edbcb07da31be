// The checks of an e-invoice file against the official artefacts (docs/api-contract.md §31 "Validation"):
// the XSD (UBL 2.1 or CII D16B) in xmllint-wasm (libxml2), then the EN 16931 Schematron of CEN's
// validation-1.3.15, precompiled from its XSLT to SEF and run in SaxonJS. Both are pinned and vendored
// (vendor/, docs/dependencies.md) so that validation runs offline. Slow enough (a second or more for a long
// invoice) to run in the rendering pool's worker threads (mail/pdf-worker.ts), never on the event loop.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type SaxonJSModule from 'saxon-js';
import { writeCii } from './einvoice-cii.js';
import type { EinvoiceModel } from './einvoice-model.js';
import { writeUbl } from './einvoice-ubl.js';

const require = createRequire(import.meta.url);
const VENDOR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../vendor');
const CEN = path.join(VENDOR, 'en16931-validation-1.3.15');

export type EinvoiceSyntax = 'ubl' | 'cii';
export type EinvoiceRoot = 'Invoice' | 'CreditNote' | 'CrossIndustryInvoice';

export interface ValidationFinding {
  rule: string;
  severity: 'fatal' | 'warning';
  location: string;
  message: string;
}

export const ARTEFACTS: Record<EinvoiceSyntax, Array<{ name: string; version: string }>> = {
  ubl: [
    { name: 'OASIS UBL 2.1 XSD', version: 'os-UBL-2.1' },
    { name: 'EN16931-UBL-validation', version: '1.3.15' },
  ],
  cii: [
    { name: 'UN/CEFACT CII D16B XSD (SCRDM subset)', version: 'D16B' },
    { name: 'EN16931-CII-validation', version: '1.3.15' },
  ],
};

interface SchemaSet {
  main: { fileName: string; contents: string };
  preload: Array<{ fileName: string; contents: string }>;
}

/** The schemas' files, flat (xmllint-wasm's file system has one folder): imports rewritten to the bare names. */
function schemaFiles(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    if (!name.endsWith('.xsd')) continue;
    const text = readFileSync(path.join(folder, name), 'utf8').replace(
      /schemaLocation="(?:[^"]*\/)?([^"/]+\.xsd)"/g,
      'schemaLocation="$1"',
    );
    files.set(path.basename(name), text);
  }
  return files;
}

const schemaSets = new Map<EinvoiceRoot, SchemaSet>();

function schemaSet(root: EinvoiceRoot): SchemaSet {
  let set = schemaSets.get(root);
  if (set === undefined) {
    const files =
      root === 'CrossIndustryInvoice'
        ? schemaFiles(path.join(CEN, 'cii/schema'))
        : schemaFiles(path.join(VENDOR, 'ubl-2.1/xsd'));
    const mainName = root === 'CrossIndustryInvoice' ? 'CrossIndustryInvoice_100pD16B.xsd' : `UBL-${root}-2.1.xsd`;
    set = {
      main: { fileName: mainName, contents: files.get(mainName) as string },
      preload: [...files].filter(([name]) => name !== mainName).map(([fileName, contents]) => ({ fileName, contents })),
    };
    schemaSets.set(root, set);
  }
  return set;
}

const stylesheets = new Map<EinvoiceSyntax, unknown>();

function stylesheet(syntax: EinvoiceSyntax): unknown {
  let compiled = stylesheets.get(syntax);
  if (compiled === undefined) {
    const file = path.join(CEN, syntax, 'xslt', `EN16931-${syntax.toUpperCase()}-validation.sef.json`);
    compiled = JSON.parse(readFileSync(file, 'utf8'));
    stylesheets.set(syntax, compiled);
  }
  return compiled;
}

/** The root element's local name, or null when the text is no XML document this validates. */
export function rootOf(xml: string): EinvoiceRoot | null {
  const match = /<(?:[A-Za-z_][\w.-]*:)?(Invoice|CreditNote|CrossIndustryInvoice)[\s>]/.exec(xml);
  return (match?.[1] as EinvoiceRoot | undefined) ?? null;
}

export async function validateXsd(xml: string, root: EinvoiceRoot): Promise<ValidationFinding[]> {
  // Loaded lazily: xmllint-wasm starts a thread of its own per call.
  const { validateXML } = require('xmllint-wasm') as typeof import('xmllint-wasm');
  const set = schemaSet(root);
  const result = await validateXML({
    xml: [{ fileName: 'einvoice.xml', contents: xml }],
    schema: [set.main],
    preload: set.preload,
    maxMemoryPages: 16 * 1024,
  });
  return result.errors.map((error) => ({
    rule: 'XSD',
    severity: 'fatal' as const,
    location: error.loc ? `line ${error.loc.lineNumber}` : '/',
    message: error.message.trim(),
  }));
}

const SVRL = 'http://purl.oclc.org/dsdl/svrl';

/** Loaded with the first validation: a rendering thread that only makes PDFs never loads SaxonJS. */
let saxon: typeof SaxonJSModule | undefined;
function saxonJs(): typeof SaxonJSModule {
  saxon ??= require('saxon-js') as typeof SaxonJSModule;
  return saxon;
}

export function validateSchematron(xml: string, syntax: EinvoiceSyntax): ValidationFinding[] {
  const SaxonJS = saxonJs();
  const result = SaxonJS.transform(
    { stylesheetInternal: stylesheet(syntax), sourceText: xml, destination: 'document' },
    'sync',
  );
  const failed = SaxonJS.XPath.evaluate('//svrl:failed-assert | //svrl:successful-report', result.principalResult, {
    namespaceContext: { svrl: SVRL },
    resultForm: 'array',
  });
  return failed.map((node) => {
    const text = SaxonJS.XPath.evaluate('string(svrl:text)', node, {
      namespaceContext: { svrl: SVRL },
      resultForm: 'array',
    });
    return {
      rule: node.getAttribute('id') ?? 'schematron',
      severity: node.getAttribute('flag') === 'warning' ? ('warning' as const) : ('fatal' as const),
      location: node.getAttribute('location') ?? '/',
      message: String(text[0] ?? '').trim(),
    };
  });
}

/** The XSD's findings, then the Schematron's (run only on a file the XSD accepts, as CEN's own tooling does). */
export async function validateEinvoiceXml(xml: string, syntax: EinvoiceSyntax): Promise<ValidationFinding[]> {
  const root = rootOf(xml);
  if (root === null || (syntax === 'cii') !== (root === 'CrossIndustryInvoice'))
    return [
      {
        rule: 'XSD',
        severity: 'fatal',
        location: '/',
        message: `The file is no ${syntax === 'ubl' ? 'UBL Invoice or CreditNote' : 'CII CrossIndustryInvoice'}.`,
      },
    ];
  const schema = await validateXsd(xml, root);
  if (schema.length > 0) return schema;
  return validateSchematron(xml, syntax);
}

/** The model written in `syntax`: the same bytes for the same model. */
export function writeEinvoice(model: EinvoiceModel, syntax: EinvoiceSyntax): Buffer {
  return syntax === 'ubl' ? writeUbl(model) : writeCii(model);
}

/** A file written from a model, and what validating it found. */
export interface WrittenEinvoice {
  xml: Uint8Array;
  findings: ValidationFinding[];
}

/** Writes the model and validates the file: the pool's task, so that neither holds the event loop. */
export async function writeAndValidateEinvoice(model: EinvoiceModel, syntax: EinvoiceSyntax): Promise<WrittenEinvoice> {
  const xml = writeEinvoice(model, syntax);
  return { xml, findings: await validateEinvoiceXml(xml.toString('utf8'), syntax) };
}
