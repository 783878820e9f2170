// Types for electronSqlite.mjs (imported by the Electron shell and the tests).
export declare const ELECTRON_SQLITE_CACHE: string;
export declare const SQLITE_BINARY_NAME: string;
export declare function electronSqliteBinding(input: { root: string; sqliteVersion: string; abi: string; platform: string; arch: string }): string;
export declare function installedSqliteVersion(root: string, readText: (path: string) => string | undefined): string | undefined;
