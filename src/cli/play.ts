export async function runPlay(_argv: string[], _io: unknown): Promise<number> { return 0; }
