// A chat page as a Next.js developer writes it with @ai-sdk/react's useChat, pointed at the service's
// /ai-sdk/chat and nothing else: no server code of its own. tests/spa/test_ai_sdk_page.py bundles it with
// esbuild and opens it in Chromium. The chat's id comes from ?chat=; its messages are kept in sessionStorage
// so that a reload starts from them and resumes the run in progress (resume: true), as an app would.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

const chatId = new URLSearchParams(location.search).get('chat');
const stored = JSON.parse(sessionStorage.getItem(`chat:${chatId}`) ?? '[]');

function Part({ part, onDecide }) {
  if (part.type === 'text') return <p data-role="text">{part.text}</p>;
  if (part.type === 'source-document') return <cite data-role="source">{part.title}</cite>;
  if (part.type.startsWith('tool-')) {
    return (
      <div data-role="tool" data-tool={part.type} data-state={part.state}>
        <span>{part.input?.summary}</span>
        {part.state === 'approval-requested' && (
          <>
            <button data-role="approve" onClick={() => onDecide(part.approval.id, true)}>
              Approve
            </button>
            <button data-role="reject" onClick={() => onDecide(part.approval.id, false)}>
              Reject
            </button>
          </>
        )}
      </div>
    );
  }
  return null;
}

function App() {
  const [input, setInput] = useState('');
  const [node, setNode] = useState('');
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    id: chatId,
    messages: stored,
    resume: true,
    transport: new DefaultChatTransport({ api: '/ai-sdk/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      if (part.type === 'data-node') setNode(`${part.data.node}:${part.data.state}`);
    },
  });
  useEffect(() => sessionStorage.setItem(`chat:${chatId}`, JSON.stringify(messages)), [messages]);
  const decide = (id, approved) => addToolApprovalResponse({ id, approved });
  return (
    <main data-status={status} data-node={node}>
      {messages.map((message) => (
        <section key={message.id} data-role={message.role} data-message-id={message.id}>
          {message.parts.map((part, index) => (
            <Part key={index} part={part} onDecide={decide} />
          ))}
        </section>
      ))}
      {error && <p data-role="error">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          sendMessage({ text: input });
          setInput('');
        }}
      >
        <input data-role="input" value={input} onChange={(event) => setInput(event.target.value)} />
        <button data-role="send" type="submit" disabled={status !== 'ready' && status !== 'error'}>
          Send
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
