// Each call below must be rejected by tsc --strict: tsc reports every unused
// expect-error directive as an error, so this file proves the checks are on.
import { renderChat, parseToolCalls } from 'node-vllm-cpp';

// @ts-expect-error messages must be a list of messages
renderChat({ messages: 'hi' }, { template: '' });
// @ts-expect-error a message needs a role
renderChat({ messages: [{ content: 'hi' }] }, { template: '' });
// @ts-expect-error tools must be tool objects
renderChat({ messages: [], tools: ['terminal'] }, { template: '' });
// @ts-expect-error unknown option
renderChat({ messages: [] }, { template: '', bosTokn: '<s>' });
// @ts-expect-error parser options need a parser name
parseToolCalls('x', {});
