/**
 * A tool call's outcome: whether the tool reported an error, whether it was replayed from its
 * checkpoint, how many attempts it took, warnings, the trace — and the content, rendered by kind
 * (text, image, audio, resource link, embedded resource, structured content).
 */
import type { CallOutcome } from '../../../../shared/contract.js';
import { formatDuration } from '../../lib/format.js';
import { useAppStore } from '../../state/useAppStore.js';
import { Callout } from './Callout.js';
import { Icon } from './Icon.js';
import { JsonTree } from './JsonTree.js';
import { CopyButton } from './CopyButton.js';

type Block = CallOutcome['result']['content'][number];

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** A data: URL for base64 content of a media kind, or undefined when it is not what it claims. */
function dataUrl(data: unknown, mimeType: unknown, kind: 'image' | 'audio'): string | undefined {
  const payload = str(data);
  const mime = str(mimeType);
  if (!payload || !mime || !mime.startsWith(`${kind}/`) || !/^[\w.+-]+\/[\w.+-]+$/.test(mime) || !BASE64.test(payload))
    return undefined;
  return `data:${mime};base64,${payload.replace(/\s/g, '')}`;
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  return Math.max(0, Math.floor((clean.length * 3) / 4) - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0));
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function KindLabel({ children }: { children: string }) {
  return <span className="result-kind">{children}</span>;
}

function TextBlock({ text }: { text: string }) {
  return (
    <div className="result-block">
      <div className="result-block-head">
        <KindLabel>Text</KindLabel>
        <CopyButton text={text} />
      </div>
      <pre className="code-block result-text">{text}</pre>
    </div>
  );
}

function ImageBlock({ block }: { block: Block }) {
  const url = dataUrl(block.data, block.mimeType, 'image');
  return (
    <div className="result-block">
      <div className="result-block-head">
        <KindLabel>Image</KindLabel>
        <span className="muted">
          {str(block.mimeType)}
          {str(block.data) && ` · ${formatBytes(base64Bytes(str(block.data)!))}`}
        </span>
      </div>
      {url ? (
        <img className="result-image" src={url} alt="Image returned by the tool" />
      ) : (
        <p className="muted">The image could not be shown (missing or invalid data or type).</p>
      )}
    </div>
  );
}

function AudioBlock({ block }: { block: Block }) {
  const url = dataUrl(block.data, block.mimeType, 'audio');
  return (
    <div className="result-block">
      <div className="result-block-head">
        <KindLabel>Audio</KindLabel>
        <span className="muted">
          {str(block.mimeType)}
          {str(block.data) && ` · ${formatBytes(base64Bytes(str(block.data)!))}`}
        </span>
        {url && (
          <a
            className="btn btn-small btn-ghost"
            href={url}
            download={`tool-audio.${str(block.mimeType)?.split('/')[1] ?? 'bin'}`}
          >
            <Icon name="down" size={14} />
            Download
          </a>
        )}
      </div>
      {url ? (
        <audio className="result-audio" controls src={url}>
          Your browser cannot play this audio; use Download.
        </audio>
      ) : (
        <p className="muted">The audio could not be shown (missing or invalid data or type).</p>
      )}
    </div>
  );
}

function ResourceLinkBlock({ block }: { block: Block }) {
  const name = str(block.title) ?? str(block.name) ?? str(block.uri) ?? 'Resource';
  return (
    <div className="result-block result-resource">
      <div className="result-block-head">
        <KindLabel>Resource link</KindLabel>
        {str(block.mimeType) && <span className="muted">{str(block.mimeType)}</span>}
      </div>
      <p className="result-resource-name">{name}</p>
      {str(block.uri) && <code className="result-uri">{str(block.uri)}</code>}
      {str(block.description) && <p className="result-resource-description">{str(block.description)}</p>}
    </div>
  );
}

function EmbeddedResourceBlock({ block }: { block: Block }) {
  const resource = (typeof block.resource === 'object' && block.resource !== null ? block.resource : {}) as Record<
    string,
    unknown
  >;
  const text = str(resource.text);
  const blob = str(resource.blob);
  return (
    <div className="result-block result-resource">
      <div className="result-block-head">
        <KindLabel>Embedded resource</KindLabel>
        {str(resource.mimeType) && <span className="muted">{str(resource.mimeType)}</span>}
        {text !== undefined && <CopyButton text={text} />}
      </div>
      {str(resource.uri) && <code className="result-uri">{str(resource.uri)}</code>}
      {text !== undefined ? (
        <pre className="code-block result-text">{text}</pre>
      ) : blob !== undefined ? (
        <p className="muted">Binary content ({formatBytes(base64Bytes(blob))}), not shown.</p>
      ) : (
        <p className="muted">No content.</p>
      )}
    </div>
  );
}

/** One content block (text, image, audio, resource); the sampling dialog shows a server's messages with it too. */
export function ContentBlock({ block }: { block: Block }) {
  switch (block.type) {
    case 'text':
      return <TextBlock text={str(block.text) ?? ''} />;
    case 'image':
      return <ImageBlock block={block} />;
    case 'audio':
      return <AudioBlock block={block} />;
    case 'resource_link':
      return <ResourceLinkBlock block={block} />;
    case 'resource':
      return <EmbeddedResourceBlock block={block} />;
    default:
      return (
        <div className="result-block">
          <div className="result-block-head">
            <KindLabel>{`Content of type “${block.type}”`}</KindLabel>
          </div>
          <JsonTree value={block} />
        </div>
      );
  }
}

export function TraceButton({ traceId }: { traceId: string }) {
  const openTrace = useAppStore((s) => s.openTrace);
  return (
    <button
      type="button"
      className="btn btn-small"
      onClick={() => openTrace(traceId)}
      title={`Trace ${traceId}`}
      data-trace-id={traceId}
    >
      <Icon name="traces" size={14} />
      View trace
    </button>
  );
}

export function ResultView({ outcome, durationMs }: { outcome: CallOutcome; durationMs: number }) {
  const { result } = outcome;
  const isError = result.isError;
  return (
    <section className={`result ${isError ? 'result-error' : 'result-ok'}`} aria-label="Result">
      <header className="result-head">
        <span className={`badge ${isError ? 'status-error' : 'status-ready'}`}>
          <span className="status-dot" aria-hidden="true" />
          {isError ? 'Tool reported an error' : 'Completed'}
        </span>
        {outcome.replayed && (
          <span className="chip chip-warning" title="A completed checkpoint answered; nothing ran again">
            replayed
          </span>
        )}
        <span className="result-facts">
          {outcome.replayed ? 'nothing ran' : `${outcome.attempts} ${outcome.attempts === 1 ? 'attempt' : 'attempts'}`}{' '}
          · {formatDuration(durationMs)}
        </span>
        <span className="result-head-actions">
          <TraceButton traceId={outcome.traceId} />
        </span>
      </header>
      {isError && (
        <p className="result-error-note">
          The tool ran and answered with an error (for example, arguments it did not accept). Its content says why.
        </p>
      )}
      {outcome.warnings.map((warning) => (
        <Callout key={warning} tone="warning" title="Warning">
          {warning}
        </Callout>
      ))}
      {result.content.length === 0 && !result.structuredContent && (
        <p className="muted">The tool returned no content.</p>
      )}
      {result.content.map((block, i) => (
        <ContentBlock key={i} block={block} />
      ))}
      {result.structuredContent && (
        <div className="result-block">
          <div className="result-block-head">
            <KindLabel>Structured content</KindLabel>
            <CopyButton text={JSON.stringify(result.structuredContent, null, 2)} label="Copy JSON" />
          </div>
          <div className="result-tree">
            <JsonTree value={result.structuredContent} openDepth={2} />
          </div>
        </div>
      )}
    </section>
  );
}
