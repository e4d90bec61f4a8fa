/**
 * Saving something main sent as a file, the browser way (a Blob and a download link), which
 * works in the browser host and in Electron's renderer alike.
 */

/** Offers a file with this content to the user as a download. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Offers text as a download. */
export function downloadText(fileName: string, text: string, type = 'text/plain'): void {
  downloadBlob(fileName, new Blob([text], { type: `${type};charset=utf-8` }));
}

/** Offers base64 bytes as a download. */
export function downloadBytes(fileName: string, base64: string): void {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  downloadBlob(fileName, new Blob([bytes]));
}
