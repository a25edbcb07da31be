// What makes a PDF/A-3b a Factur-X invoice (Factur-X 1.0, profile EN 16931): the CII embedded as
// `factur-x.xml` (text/xml, AFRelationship /Alternative, listed in the catalogue's /AF), and the XMP with the
// Factur-X extension schema. pdfkit writes the PDF/A-3b part (embedded fonts, the sRGB output intent).

/** The file name the Factur-X specification fixes for the embedded CII. */
export const FACTURX_FILE_NAME = 'factur-x.xml';

/** The XMP the Factur-X specification requires: its properties and the PDF/A extension schema declaring them. */
const FACTURX_XMP = `
        <rdf:Description xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#" rdf:about="">
            <fx:DocumentType>INVOICE</fx:DocumentType>
            <fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
            <fx:Version>1.0</fx:Version>
            <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
        </rdf:Description>
        <rdf:Description xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#" rdf:about="">
            <pdfaExtension:schemas>
                <rdf:Bag>
                    <rdf:li rdf:parseType="Resource">
                        <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                        <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
                        <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                        <pdfaSchema:property>
                            <rdf:Seq>
                                <rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>DocumentFileName</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>The name of the embedded XML document</pdfaProperty:description>
                                </rdf:li>
                                <rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>DocumentType</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>The type of the hybrid document in capital letters, e.g. INVOICE or ORDER</pdfaProperty:description>
                                </rdf:li>
                                <rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>Version</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>The actual version of the standard applying to the embedded XML document</pdfaProperty:description>
                                </rdf:li>
                                <rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>ConformanceLevel</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>The conformance level of the embedded XML document</pdfaProperty:description>
                                </rdf:li>
                            </rdf:Seq>
                        </pdfaSchema:property>
                    </rdf:li>
                </rdf:Bag>
            </pdfaExtension:schemas>
        </rdf:Description>
        `;

/** The PDFDocument options of a Factur-X: PDF/A-3b in PDF 1.7. */
export const FACTURX_PDF_OPTIONS = { subset: 'PDF/A-3b', pdfVersion: '1.7' } as const;

/** Embeds the CII and writes the Factur-X XMP; call before the document ends. */
export function embedFacturX(pdf: PDFKit.PDFDocument, cii: Uint8Array, date: Date): void {
  pdf.file(Buffer.from(cii.buffer, cii.byteOffset, cii.byteLength), {
    name: FACTURX_FILE_NAME,
    type: 'text/xml',
    description: 'Factur-X invoice (EN 16931)',
    creationDate: date,
    modifiedDate: date,
    // pdfkit's own option (its types lack it): the file spec's /AFRelationship.
    relationship: 'Alternative',
  } as Parameters<typeof pdf.file>[1]);
  pdf.appendXML(FACTURX_XMP);
}
