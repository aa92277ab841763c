/**
 * String formats a CRD schema may name, checked as kube-openapi's `strfmt` registry checks them
 * (the subset people use: byte, date, date-time, uuid, uuid3/4/5, email, hostname, ipv4, ipv6,
 * cidr, mac). Unknown formats, and formats celmap does not check, pass.
 */

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function ipv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p.length === 1 || !p.startsWith("0")));
}

function ipv6(s: string): boolean {
  if (!s.includes(":")) return false;
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}

function validDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

/** Whether `value` violates `format` (false for formats not checked). */
export function formatProblem(format: string, value: string): boolean {
  switch (format) {
    case "byte":
      return !BASE64.test(value);
    case "date":
      return !DATE.test(value) || !validDate(value);
    case "date-time":
    case "datetime":
      return !DATE_TIME.test(value) || !validDate(value);
    case "uuid":
      return !UUID.test(value);
    case "uuid3":
      return !UUID3.test(value);
    case "uuid4":
      return !UUID4.test(value);
    case "uuid5":
      return !UUID5.test(value);
    case "email":
      return !EMAIL.test(value);
    case "hostname":
      return !HOSTNAME.test(value);
    case "ipv4":
      return !ipv4(value);
    case "ipv6":
      return !ipv6(value);
    case "cidr": {
      const [ip, bits, ...rest] = value.split("/");
      if (rest.length > 0 || ip === undefined || bits === undefined || !/^\d+$/.test(bits)) return true;
      return ipv4(ip) ? Number(bits) > 32 : ipv6(ip) ? Number(bits) > 128 : true;
    }
    case "mac":
      return !MAC.test(value);
    default:
      return false;
  }
}
