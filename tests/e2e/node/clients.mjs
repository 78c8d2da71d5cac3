// One tool turn through an official Node SDK against a stand-in: `node clients.mjs <scenario> <stream> <root>`.
// Prints the final text as JSON on stdout; any error exits non-zero with its message on stderr.
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import OpenAI from 'openai';
import { ResponsesToolRunner } from 'openai/helpers/responses-tool-runner';

const [scenario, streamFlag, root] = process.argv.slice(2);
const stream = streamFlag === 'stream';
const weather = (city) => `15 C in ${city}`;
const question = 'Weather in Paris?';
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function openai() {
  return new OpenAI({ baseURL: `${root}/v1`, apiKey: 'stand-in', maxRetries: 0 });
}

function anthropic() {
  return new Anthropic({ baseURL: root, apiKey: 'stand-in', maxRetries: 0 });
}

async function chat() {
  const client = openai();
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters } }];
  const messages = [{ role: 'user', content: question }];
  for (;;) {
    const message = stream
      ? (await client.chat.completions.stream({ model: 'm', messages, tools }).finalChatCompletion()).choices[0].message
      : (await client.chat.completions.create({ model: 'm', messages, tools })).choices[0].message;
    if (!message.tool_calls?.length) return message.content;
    messages.push(message);
    for (const call of message.tool_calls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: weather(JSON.parse(call.function.arguments).city) });
    }
  }
}

async function runTools() {
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters,
    function: (args) => weather(args.city), parse: JSON.parse } }];
  const runner = openai().chat.completions.runTools({ model: 'm', messages: [{ role: 'user', content: question }],
    tools, stream });
  return await runner.finalContent();
}

async function responsesTurn(client, body) {
  if (!stream) return await client.responses.create(body);
  return await client.responses.stream(body).finalResponse();
}

async function responses(chained) {
  const client = openai();
  const tools = [{ type: 'function', name: 'get_weather', parameters, strict: false }];
  let input = [{ role: 'user', content: question }];
  let previous;
  for (;;) {
    const response = await responsesTurn(client, { model: 'm', input, tools, previous_response_id: previous });
    const calls = response.output.filter((item) => item.type === 'function_call');
    if (!calls.length) return response.output_text;
    const outputs = calls.map((call) => ({ type: 'function_call_output', call_id: call.call_id,
      output: weather(JSON.parse(call.arguments).city) }));
    if (chained) {
      previous = response.id;
      input = outputs;
    } else {
      input = [...input, ...response.output.map((item) => ({ type: 'item_reference', id: item.id })), ...outputs];
    }
  }
}

async function responsesRunner() {
  const tool = { type: 'function', name: 'get_weather', parameters, strict: false };
  const runner = new ResponsesToolRunner({ functions: [{ tool, execute: (args) => weather(args.city) }] });
  const response = await runner.run(openai(), { model: 'm', input: question }, { stream });
  return response.output_text;
}

async function messages() {
  const client = anthropic();
  const tools = [{ name: 'get_weather', description: 'Weather.', input_schema: parameters }];
  const history = [{ role: 'user', content: question }];
  for (;;) {
    const body = { model: 'm', max_tokens: 100, messages: history, tools };
    const message = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (!uses.length) return message.content[0].text;
    history.push({ role: 'assistant', content: message.content });
    history.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id,
      content: weather(use.input.city) })) });
  }
}

async function toolRunner() {
  const tool = betaTool({ name: 'get_weather', description: 'Weather.', inputSchema: parameters,
    run: (args) => weather(args.city) });
  const runner = anthropic().beta.messages.toolRunner({ model: 'm', max_tokens: 100, tools: [tool], stream,
    messages: [{ role: 'user', content: question }] });
  const final = await runner.runUntilDone();
  return final.content[0].text;
}

const scenarios = { chat, runTools, responses: () => responses(false), chained: () => responses(true),
  responsesRunner, messages, toolRunner };
try {
  console.log(JSON.stringify(await scenarios[scenario]()));
} catch (error) {
  console.error(`${error?.constructor?.name}: ${error?.message}`);
  process.exit(1);
}
