// Streams one message with the official TypeScript SDK and prints one JSON line on stdout.
//
//   node stream.mjs BASE_URL MODEL PROMPT
//
// Success: {"ok":true,"id":"msg_…","text":"…","stop_reason":"end_turn","blocks":1,"starts":["msg_…"]}
//   text    the text of all text blocks of stream.finalMessage()
//   blocks  how many content blocks the final message holds
//   starts  the id of every message_start event seen (a resumed stream must show one)
// Failure: {"ok":false,"error":"APIError","message":"…"}  (error = the thrown object's class name)
//
// The SDK's own retries are off (Levee owns retries); any API key will do, and ANTHROPIC_*
// variables of the environment are ignored so nothing but these arguments steers the client.
import Anthropic from '@anthropic-ai/sdk';

const [baseURL, model, prompt] = process.argv.slice(2);
if (!baseURL || !model || !prompt) {
  process.stderr.write('usage: node stream.mjs BASE_URL MODEL PROMPT\n');
  process.exit(2);
}

const client = new Anthropic({
  baseURL,
  apiKey: 'sk-test-client-key',
  authToken: null,
  maxRetries: 0,
  timeout: 30_000,
});

let result;
try {
  const starts = [];
  const stream = client.messages.stream({
    model,
    max_tokens: 1024,
    messages: [{ role: 'user', content: prompt }],
  });
  stream.on('streamEvent', (event) => {
    if (event.type === 'message_start') starts.push(event.message.id);
  });
  const message = await stream.finalMessage();
  const text = message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  result = {
    ok: true,
    id: message.id,
    text,
    stop_reason: message.stop_reason,
    blocks: message.content.length,
    starts,
  };
} catch (e) {
  result = { ok: false, error: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
}
process.stdout.write(JSON.stringify(result) + '\n');
