// SPDX-License-Identifier: MIT
// A small JSON writer for the oracle: raw values exactly (64-bit integers as numbers, doubles
// round-trip with "R", NaN and infinities as the strings "NaN", "Infinity", "-Infinity").
using System.Globalization;
using System.Text;

namespace Gcev.Oracle;

internal static class Json
{
    public static void Str(StringBuilder sb, string? s)
    {
        if (s == null)
        {
            sb.Append("null");
            return;
        }
        sb.Append('"');
        foreach (char c in s)
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                default:
                    if (c < 0x20 || char.IsSurrogate(c))
                        sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    else
                        sb.Append(c);
                    break;
            }
        }
        sb.Append('"');
    }

    public static void Double(StringBuilder sb, double d)
    {
        if (double.IsNaN(d))
            sb.Append("\"NaN\"");
        else if (double.IsPositiveInfinity(d))
            sb.Append("\"Infinity\"");
        else if (double.IsNegativeInfinity(d))
            sb.Append("\"-Infinity\"");
        else
            sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
    }

    /// <summary>True when v is written as a JSON scalar by <see cref="Scalar"/>.</summary>
    public static bool IsScalar(object? v) =>
        v is null or string or bool or char or Enum or Guid or DateTime or byte[] || v.GetType().IsPrimitive || v is decimal;

    /// <summary>A scalar payload value: integers and enums as their raw number, bytes as hex.</summary>
    public static void Scalar(StringBuilder sb, object? v)
    {
        switch (v)
        {
            case null: sb.Append("null"); break;
            case string s: Str(sb, s); break;
            case bool b: sb.Append(b ? "true" : "false"); break;
            case double d: Double(sb, d); break;
            case float f: Double(sb, f); break;
            case char c: sb.Append((int)c); break;
            case Enum e:
                if (Enum.GetUnderlyingType(e.GetType()) == typeof(ulong))
                    sb.Append(Convert.ToUInt64(e, CultureInfo.InvariantCulture));
                else
                    sb.Append(Convert.ToInt64(e, CultureInfo.InvariantCulture));
                break;
            case Guid g: Str(sb, g.ToString("D")); break;
            case DateTime dt: Str(sb, dt.ToUniversalTime().ToString("o", CultureInfo.InvariantCulture)); break;
            case byte[] bytes: Str(sb, Convert.ToHexString(bytes).ToLowerInvariant()); break;
            case Array arr:
                sb.Append('[');
                for (int i = 0; i < arr.Length; i++)
                {
                    if (i > 0)
                        sb.Append(',');
                    Scalar(sb, arr.GetValue(i));
                }
                sb.Append(']');
                break;
            case IFormattable fmt: sb.Append(fmt.ToString(null, CultureInfo.InvariantCulture)); break;
            default: Str(sb, v.ToString()); break;
        }
    }
}
