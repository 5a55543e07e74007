// OpenAI's speech-to-text endpoint as the emulator speaks it: `POST .../audio/transcriptions`
// with a multipart form (`file`, `model`, optional `language` and `response_format`), answered
// `{"text": ...}` from a queue of scripted transcripts; a request with no file is a 400, as OpenAI answers.

/** What one transcription request carried (the form, decoded). */
export interface TranscriptionForm {
  model: string;
  fileName: string;
  fileType: string;
  fileBytes: Uint8Array;
  language?: string;
  responseFormat?: string;
}

/** Parses the multipart body; a string explains why it is not a valid request. */
export async function readTranscriptionForm(raw: Buffer, contentType: string): Promise<TranscriptionForm | string> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch {
    return 'the body is not multipart/form-data';
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof Blob)) return "you must provide a 'file'";
  if (typeof model !== 'string' || model === '') return "you must provide a 'model'";
  const language = form.get('language');
  const responseFormat = form.get('response_format');
  return {
    model,
    fileName: (file as File).name ?? 'file',
    fileType: file.type,
    fileBytes: new Uint8Array(await file.arrayBuffer()),
    ...(typeof language === 'string' ? { language } : {}),
    ...(typeof responseFormat === 'string' ? { responseFormat } : {}),
  };
}
