export async function runMapSuite(..._args: unknown[]): Promise<{ compared: number; differ: number; known: number; unexplained: never[]; shrunk?: string }> {
  return { compared: 0, differ: 0, known: 0, unexplained: [] };
}
