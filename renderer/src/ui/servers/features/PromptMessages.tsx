/**
 * A prompt's messages as main bounded them: each with its role and its content — text (cut when
 * long, and said so), an image or audio (shown when main carried the data), an embedded resource,
 * a resource link, or anything newer as a tree.
 */
import type { PromptResultView } from '../../../../../shared/contract.js';
import { ResourceContentViewSchema } from '../../../../../shared/contract.js';
import { MAX_CONTENT_TEXT_BYTES } from '../../../../../shared/limits.js';
import { formatBytes } from '../../../lib/format.js';
import { JsonTree } from '../../components/JsonTree.js';
import { CopyButton } from '../../components/CopyButton.js';
import { ResourceContentItem } from './ResourceContents.js';

type Block = PromptResultView['messages'][number]['content'];

const MEDIA = /^(image|audio)\/[\w.+-]+$/;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function Omitted({ block }: { block: Block }) {
  const size = typeof block.sizeBytes === 'number' ? ` (${formatBytes(block.sizeBytes)})` : '';
  return <p className="muted resource-note">Too large to carry into the app{size}: not shown.</p>;
}

function MessageContent({ block }: { block: Block }) {
  switch (block.type) {
    case 'text': {
      const text = str(block.text) ?? '';
      return (
        <div className="result-block">
          <div className="result-block-head">
            <span className="result-kind">Text</span>
            <CopyButton text={text} />
          </div>
          <pre className="code-block result-text">{text}</pre>
          {block.truncated === true && (
            <p className="muted resource-note" role="note">
              Cut: showing the first {formatBytes(MAX_CONTENT_TEXT_BYTES)} of{' '}
              {formatBytes(typeof block.sizeBytes === 'number' ? block.sizeBytes : 0)}.
            </p>
          )}
        </div>
      );
    }
    case 'image':
    case 'audio': {
      const mime = str(block.mimeType);
      const data = str(block.data);
      const url =
        data && mime && MEDIA.test(mime) && mime.startsWith(`${block.type}/`) && mime !== 'image/svg+xml'
          ? `data:${mime};base64,${data}`
          : undefined;
      return (
        <div className="result-block">
          <div className="result-block-head">
            <span className="result-kind">{block.type === 'image' ? 'Image' : 'Audio'}</span>
            <span className="muted">{mime}</span>
          </div>
          {url ? (
            block.type === 'image' ? (
              <img className="result-image" src={url} alt="Image in the prompt" />
            ) : (
              <audio className="result-audio" controls src={url} />
            )
          ) : (
            <Omitted block={block} />
          )}
        </div>
      );
    }
    case 'resource': {
      const parsed = ResourceContentViewSchema.safeParse(block.resource);
      return parsed.success ? (
        <div className="result-block result-resource">
          <code className="result-uri">{parsed.data.uri}</code>
          <ResourceContentItem content={parsed.data} />
        </div>
      ) : (
        <JsonTree value={block} />
      );
    }
    case 'resource_link':
      return (
        <div className="result-block result-resource">
          <div className="result-block-head">
            <span className="result-kind">Resource link</span>
            {str(block.mimeType) && <span className="muted">{str(block.mimeType)}</span>}
          </div>
          <p className="result-resource-name">{str(block.title) ?? str(block.name) ?? str(block.uri)}</p>
          {str(block.uri) && <code className="result-uri">{str(block.uri)}</code>}
        </div>
      );
    default:
      return block.omitted === true ? <Omitted block={block} /> : <JsonTree value={block} />;
  }
}

export function PromptMessages({ result }: { result: PromptResultView }) {
  return (
    <div className="prompt-messages">
      {result.description && <p className="tool-description">{result.description}</p>}
      {result.messages.length === 0 ? (
        <p className="muted">The prompt has no messages.</p>
      ) : (
        <ol className="prompt-message-list" aria-label="Messages">
          {result.messages.map((message, i) => (
            <li key={i} className={`prompt-message prompt-message-${message.role}`}>
              <span className="chip">{message.role}</span>
              <MessageContent block={message.content} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
