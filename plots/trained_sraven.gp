# SRAVEN through one transformer block with an MoE FFN (compositional paper, Figs. 1-5 in the CPU size
# of docs/trained.md): exact-match accuracy against the number of active experts k, one line per
# number of composed rules M. Left: OOD (held-out rule combinations, the paper's Figs. 1, 3, 5);
# right: in distribution (Figs. 2, 4), each M's Bayes ceiling dashed in its colour. The titles give
# k* per M with its 90% seed-bootstrap interval (columns kstar_*, kstar_*_lo, kstar_*_hi).
# Usage: gnuplot -e "csv='results/trained_sraven.csv'; png='results/trained_sraven.png'" plots/trained_sraven.gp
if (!exists("csv")) csv = 'results/trained_sraven.csv'
if (!exists("png")) png = 'results/trained_sraven.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
first_value(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} NR == 2 {print $k}'", csv, name))
# "M=m: k* [lo, hi]" for the titles.
kstar_text(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == \"M\") a = i; if ($i == \"%s\") b = i; if ($i == \"%s_lo\") l = i; if ($i == \"%s_hi\") h = i}; next} {print \"M=\" $a \": \" $b \" [\" $l \",\" $h \"]\"}' | sort -u | tr '\\n' ' '", csv, name, name, name))
Ms = col_values("M")
att = first_value("attention")
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
set multiplot layout 1, 2 title sprintf("SRAVEN, one %s-attention block, MoE FFN of 8 experts, top-k; %s", att, trials_text)
set grid
set logscale x 2
set xrange [0.8:10]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
set xlabel "active experts k"
set ylabel "exact-match accuracy"
set yrange [0:1.05]
set key bottom right box opaque
set title "OOD (held-out rule combinations); k* [90% CI]: " . kstar_text("kstar_ood") font ",9"
plot for [j = 1:words(Ms)] csv using (column("M") == word(Ms, j) + 0 ? column("k") : 1/0):"ood_accuracy_mean":"ood_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 lc j title sprintf("M = %s", word(Ms, j)), \
     for [j = 1:words(Ms)] csv using (column("M") == word(Ms, j) + 0 ? column("k") : 1/0):"bayes_ood_mean" with lines dt 2 lw 1 lc j notitle
set title "in distribution; k* [90% CI]: " . kstar_text("kstar_id") font ",9"
plot for [j = 1:words(Ms)] csv using (column("M") == word(Ms, j) + 0 ? column("k") : 1/0):"id_accuracy_mean":"id_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 lc j title sprintf("M = %s", word(Ms, j)), \
     for [j = 1:words(Ms)] csv using (column("M") == word(Ms, j) + 0 ? column("k") : 1/0):"bayes_id_mean" with lines dt 2 lw 1 lc j notitle
unset multiplot
unset yrange
unset logscale x
unset xrange
set xtics autofreq
}
