// Types for keepNodeBuild.mjs (so the tests typecheck against it).
export declare function nodeBuildFiles(root: string): string[];
export declare function snapshot(files: string[]): { restore(): void };
