# Inference-time k (compositional paper, Tables 1-2, in the CPU reduction of docs/trained.md).
# Left: OOD exact-match accuracy against the inference k, one line per (M, k0); right: the paired
# per-entry OOD gain h(k) - h(k0) of the same models (0 at k = k0), with its standard error.
# Usage: gnuplot -e "csv='results/trained_inference_k.csv'; png='results/trained_inference_k.png'" plots/trained_inference_k.gp
if (!exists("csv")) csv = 'results/trained_inference_k.csv'
if (!exists("png")) png = 'results/trained_inference_k.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
Ms = col_values("M")
k0s = col_values("k0")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,600 enhanced font ",11"
  } else {
    set terminal png size 1400,600
  }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set datafile missing "nan"
set multiplot layout 1, 2 title sprintf("SRAVEN-like task, 8 experts trained at k0, evaluated at k; %s seeds", trials_text)
set xlabel "active experts at inference k"
set key top right
set grid
set ylabel "OOD exact-match accuracy"
plot for [M in Ms] for [k0 in k0s] csv using (column("M") == M + 0 && column("k0") == k0 + 0 ? column("k") : NaN):"ood_accuracy_mean":"ood_accuracy_std_error" \
  with yerrorlines title sprintf("M = %s, k0 = %s", M, k0)
set ylabel "per-entry OOD accuracy gain h(k) - h(k0)"
plot for [M in Ms] for [k0 in k0s] csv using (column("M") == M + 0 && column("k0") == k0 + 0 ? column("k") : NaN):"ood_head_gain_mean":"ood_head_gain_std_error" \
  with yerrorlines title sprintf("M = %s, k0 = %s", M, k0), 0 with lines lc rgb "gray" notitle
unset multiplot
}
