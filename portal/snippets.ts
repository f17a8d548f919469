/** How a customer checks a delivery: shown as text in the portal's docs screen. */
export const SIGNATURE_SNIPPETS: ReadonlyArray<{ title: string; language: string; code: string }> = [
  {
    title: 'Node.js',
    language: 'js',
    code: `const crypto = require('node:crypto');

// rawBody: the request body exactly as received; header: the Webhook-Signature header.
function verify(rawBody, header, secret, toleranceSeconds = 300) {
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([key]) => key === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > toleranceSeconds) return false;
  const expected = crypto.createHmac('sha256', secret).update(\`\${t}.\${rawBody}\`).digest('hex');
  return parts
    .filter(([key]) => key === 'v1')
    .some(([, sig]) => sig.length === expected.length && crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected)));
}`,
  },
  {
    title: 'Python',
    language: 'python',
    code: `import hashlib, hmac, time

def verify(raw_body: bytes, header: str, secret: str, tolerance: int = 300) -> bool:
    items = [part.split("=", 1) for part in header.split(",")]
    t = next((value for key, value in items if key == "t"), None)
    if t is None or abs(time.time() - int(t)) > tolerance:
        return False
    expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(value, expected) for key, value in items if key == "v1")`,
  },
  {
    title: 'Go',
    language: 'go',
    code: `func Verify(rawBody []byte, header, secret string, tolerance time.Duration) bool {
	var t string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(part, "=")
		switch key {
		case "t":
			t = value
		case "v1":
			sigs = append(sigs, value)
		}
	}
	ts, err := strconv.ParseInt(t, 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > tolerance {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(rawBody)
	expected := hex.EncodeToString(mac.Sum(nil))
	for _, sig := range sigs {
		if hmac.Equal([]byte(sig), []byte(expected)) {
			return true
		}
	}
	return false
}`,
  },
];

export const STANDARD_WEBHOOKS_SNIPPETS: ReadonlyArray<{ title: string; language: string; code: string }> = [
  {
    title: 'Node.js (npm install standardwebhooks)',
    language: 'js',
    code: `import { Webhook } from 'standardwebhooks';

// Throws when the webhook-id / webhook-timestamp / webhook-signature headers do not match.
const payload = new Webhook(secret).verify(rawBody, headers);`,
  },
  {
    title: 'Python (pip install standardwebhooks)',
    language: 'python',
    code: `from standardwebhooks.webhooks import Webhook

payload = Webhook(secret).verify(raw_body, headers)  # raises on a bad signature`,
  },
  {
    title: 'Go (github.com/standard-webhooks/standard-webhooks/libraries/go)',
    language: 'go',
    code: `wh, err := standardwebhooks.NewWebhook(secret)
if err != nil {
	return err
}
if err := wh.Verify(rawBody, r.Header); err != nil {
	return err // not signed with this endpoint's secret
}`,
  },
];
