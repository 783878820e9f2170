/**
 * A stored or replayed tool result, simply: each content block by kind (text as text, images
 * inline, links and resources by their uri, anything else as a tree), structured content as a
 * tree, and whether the tool reported an error.
 */
import { useState } from 'react';
import type { ToolResultView } from '../../../../shared/contract.js';
import { formatBytes } from '../../lib/format.js';
import { JsonTree } from '../components/JsonTree.js';

type Block = ToolResultView['content'][number];

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function imageUrl(block: Block): string | undefined {
  const data = str(block.data);
  const mime = str(block.mimeType);
  if (!data || !mime || !/^image\/[\w.+-]+$/.test(mime) || !/^[A-Za-z0-9+/=\s]*$/.test(data)) return undefined;
  return `data:${mime};base64,${data.replace(/\s/g, '')}`;
}

/** Characters of a text block shown at first: a multi-megabyte text would stall the page. */
const TEXT_SHOWN_AT_FIRST = 100_000;

function TextBlock({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const cut = !all && text.length > TEXT_SHOWN_AT_FIRST;
  return (
    <>
      <pre className="code-block result-content-text">{cut ? `${text.slice(0, TEXT_SHOWN_AT_FIRST)}…` : text}</pre>
      {cut && (
        <button type="button" className="btn btn-small" onClick={() => setAll(true)}>
          Show all ({formatBytes(text.length)})
        </button>
      )}
    </>
  );
}

function BlockView({ block }: { block: Block }) {
  switch (block.type) {
    case 'text':
      return <TextBlock text={str(block.text) ?? ''} />;
    case 'image': {
      const url = imageUrl(block);
      return url ? (
        <img className="result-content-image" src={url} alt="Image returned by the tool" />
      ) : (
        <p className="muted">An image that cannot be shown.</p>
      );
    }
    case 'resource_link':
      return (
        <p className="result-content-link">
          <span className="result-content-kind">Link</span> {str(block.title) ?? str(block.name) ?? ''}{' '}
          <code>{str(block.uri)}</code>
        </p>
      );
    case 'resource': {
      const resource = (typeof block.resource === 'object' && block.resource !== null ? block.resource : {}) as Record<
        string,
        unknown
      >;
      return (
        <div className="result-content-resource">
          <p>
            <span className="result-content-kind">Resource</span> <code>{str(resource.uri)}</code>
          </p>
          {str(resource.text) !== undefined ? (
            <pre className="code-block result-content-text">{str(resource.text)}</pre>
          ) : (
            <p className="muted">Binary content, not shown.</p>
          )}
        </div>
      );
    }
    default:
      return (
        <div>
          <span className="result-content-kind">{block.type}</span>
          <JsonTree value={block} />
        </div>
      );
  }
}

export function ResultContent({ result }: { result: ToolResultView }) {
  return (
    <div className={`result-content ${result.isError ? 'is-error' : ''}`}>
      {result.isError && <p className="result-content-error">The tool ran and reported an error in its result.</p>}
      {result.content.length === 0 && !result.structuredContent && <p className="muted">The result is empty.</p>}
      {result.content.map((block, index) => (
        <BlockView key={index} block={block} />
      ))}
      {result.structuredContent && (
        <div className="result-content-structured">
          <span className="result-content-kind">Structured content</span>
          <JsonTree value={result.structuredContent} />
        </div>
      )}
    </div>
  );
}
