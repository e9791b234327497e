# k* on a compositional task (compositional paper, Figs. 1-2 in the CPU reduction of docs/trained.md).
# Left: OOD exact-match accuracy vs M, one line per k; right: ID accuracy vs M with the Bayes ceiling.
# The best k per M (columns best_k_ood, best_k_id) is printed in the titles' keys.
# Usage: gnuplot -e "csv='results/trained_compositional_kstar.csv'; png='results/trained_compositional_kstar.png'" plots/trained_compositional_kstar.gp
if (!exists("csv")) csv = 'results/trained_compositional_kstar.csv'
if (!exists("png")) png = 'results/trained_compositional_kstar.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
# "M:best" pairs for the titles.
best_text(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == \"M\") a = i; if ($i == \"%s\") b = i}; next} {print \"M=\" $a \":\" $b}' | sort -u | tr '\\n' ' '", csv, name))
ks = col_values("k")
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
set multiplot layout 1, 2 title sprintf("SRAVEN-like task, one MoE layer of 8 experts, top-k; %s seeds", trials_text)
set grid
set xlabel "rules composed M"
set ylabel "exact-match accuracy"
set yrange [0:1.05]
set key bottom left box opaque
set title "OOD (held-out combinations); best k: " . best_text("best_k_ood") font ",9"
plot for [j = 1:words(ks)] csv using (column("k") == word(ks, j) + 0 ? column("M") : 1/0):"ood_accuracy_mean":"ood_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 title sprintf("8-%s", word(ks, j))
set title "in distribution; best k: " . best_text("best_k_id") font ",9"
plot for [j = 1:words(ks)] csv using (column("k") == word(ks, j) + 0 ? column("M") : 1/0):"id_accuracy_mean":"id_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 title sprintf("8-%s", word(ks, j)), \
     csv using (column("k") == word(ks, 1) + 0 ? column("M") : 1/0):"bayes_id_mean" with lines dt 2 lw 2 lc rgb "black" title "Bayes ceiling"
unset multiplot
unset yrange
}
