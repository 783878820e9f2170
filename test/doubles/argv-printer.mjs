// Prints its arguments as one JSON array on stdout (the sandbox's argv-quoting tests read it back).
process.stdout.write(`${JSON.stringify(process.argv.slice(2))}\n`);
