// `npm start`: until the Electron shell lands, say so plainly instead of failing obscurely.
console.log('MiniHarness Desktop: the app shell is not built yet (the MCP core is). Run `npm test` to exercise the core.');
