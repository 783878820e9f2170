/**
 * A resource's contents as main bounded them (shared/limits.ts): a text, cut when long (and
 * said so); binary data described by type and size, saved or — for a small raster image —
 * previewed only when main carried it.
 */
import type { ReactNode } from 'react';
import type { ResourceContentView } from '../../../../../shared/contract.js';
import {
  MAX_CONTENT_BINARY_BYTES,
  MAX_CONTENT_TEXT_BYTES,
  MAX_CONTENT_VIEW_BYTES,
} from '../../../../../shared/limits.js';
import { formatBytes } from '../../../lib/format.js';
import { Icon } from '../../components/Icon.js';
import { CopyButton } from '../../components/CopyButton.js';

/** Raster types a browser shows safely in an <img> (no SVG: it is a document). */
const PREVIEWABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);
const MIME = /^[\w.+-]+\/[\w.+-]+$/;

function mimeOf(content: ResourceContentView): string {
  return content.mimeType && MIME.test(content.mimeType) ? content.mimeType.toLowerCase() : 'application/octet-stream';
}

/** A file name for saving: the URI's last path segment, without characters file systems refuse. */
function fileNameOf(uri: string): string {
  const last = uri.split(/[/?#]/).filter(Boolean).pop() ?? '';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // not percent-encoded text: keep it as it is
  }
  const clean = [...name]
    .map((c) => (c.charCodeAt(0) < 0x20 || '\\/:*?"<>|'.includes(c) ? '_' : c))
    .join('')
    .slice(0, 120);
  return clean && !/^[.]+$/.test(clean) ? clean : 'resource';
}

function Head({ kind, content, children }: { kind: string; content: ResourceContentView; children?: ReactNode }) {
  return (
    <div className="result-block-head">
      <span className="result-kind">{kind}</span>
      <span className="muted">
        {content.mimeType ?? 'no type given'} · {formatBytes(content.sizeBytes)}
      </span>
      {children}
    </div>
  );
}

export function ResourceContentItem({ content }: { content: ResourceContentView }) {
  if (content.kind === 'text') {
    const text = content.text ?? '';
    return (
      <div className="result-block resource-content" data-kind="text">
        <Head kind="Text" content={content}>
          <CopyButton text={text} />
        </Head>
        <pre className="code-block result-text">{text}</pre>
        {content.truncated && (
          <p className="muted resource-note" role="note">
            Cut: showing the first {formatBytes(MAX_CONTENT_TEXT_BYTES)} of {formatBytes(content.sizeBytes)}.
          </p>
        )}
      </div>
    );
  }
  const mime = mimeOf(content);
  const url = content.blob !== undefined ? `data:${mime};base64,${content.blob}` : undefined;
  return (
    <div className="result-block resource-content" data-kind="blob">
      <Head kind="Binary" content={content}>
        {url && (
          <a className="btn btn-small btn-ghost" href={url} download={fileNameOf(content.uri)}>
            <Icon name="down" size={14} />
            Save
          </a>
        )}
      </Head>
      {url && PREVIEWABLE.has(mime) && <img className="result-image" src={url} alt={`Preview of ${content.uri}`} />}
      {content.omitted && (
        <p className="muted resource-note" role="note">
          Not loaded into the app: binary content is carried up to {formatBytes(MAX_CONTENT_BINARY_BYTES)} an item and{' '}
          {formatBytes(MAX_CONTENT_VIEW_BYTES)} an answer, so only its type and size are shown.
        </p>
      )}
    </div>
  );
}

export function ResourceContents({ contents }: { contents: ResourceContentView[] }) {
  if (contents.length === 0) return <p className="muted">The server returned no content.</p>;
  return (
    <div className="resource-contents">
      {contents.map((content, i) => (
        <div key={i} className="resource-content-item">
          {contents.length > 1 && <code className="result-uri">{content.uri}</code>}
          <ResourceContentItem content={content} />
        </div>
      ))}
    </div>
  );
}
