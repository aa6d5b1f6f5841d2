/** /service/clear_empty_line: every line trimmed, empty lines dropped (CRLF and CR read as line breaks). */
export function clearEmptyLines(text: string): string {
  return text.split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l !== '').join('\n');
}

/**
 * Copies text to the clipboard: the Clipboard API where the page is a secure context (https, localhost),
 * else the older copy command on a hidden textarea (a console opened over plain http on a LAN address).
 */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('The browser refused to copy: select the text and press Ctrl+C');
}
