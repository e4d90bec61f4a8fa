export const SUPPORTED_MAJORS: number;
export function supportVerdict(pinned: string, latest: string): { ok: boolean; line: string };
